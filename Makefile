# Build and install openurld. The scripts do the work; this is the interface
# packagers expect.
#
#   make                        build (release, Swift runtime linked statically)
#   make install                install below PREFIX (default /usr/local), honouring DESTDIR
#   make install-user           install for one user into ~/.local and ~/.config, no root needed
#   make uninstall              remove what install put there (same PREFIX and DESTDIR)
#   make test | run | bench     scripts/test, scripts/run, bench/run

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
DATADIR ?= $(PREFIX)/share
MANDIR ?= $(DATADIR)/man
SYSTEMD_USER_UNIT_DIR ?= $(PREFIX)/lib/systemd/user
DBUS_SERVICE_DIR ?= $(DATADIR)/dbus-1/services
DBUS_INTERFACE_DIR ?= $(DATADIR)/dbus-1/interfaces
APPLICATIONS_DIR ?= $(DATADIR)/applications
# Seconds without handlers after which the activated daemon exits.
IDLE_EXIT ?= 300
SWIFT_BUILD_FLAGS ?= -c release --static-swift-stdlib
# Where the built binaries are; tests point this at a debug build.
BUILD_DIR ?= $(shell swift build $(SWIFT_BUILD_FLAGS) --show-bin-path 2>/dev/null)

SUBSTITUTE = sed -e 's|@BINDIR@|$(BINDIR)|g' -e 's|@IDLE_EXIT@|$(IDLE_EXIT)|g'

.PHONY: all build install install-files install-user uninstall uninstall-user test run bench clean

all: build

build:
	scripts/ensure-deps build
	swift build $(SWIFT_BUILD_FLAGS) --product openurld
	swift build $(SWIFT_BUILD_FLAGS) --product openurl

install: build install-files

install-files:
	install -Dm755 $(BUILD_DIR)/openurld $(DESTDIR)$(BINDIR)/openurld
	install -Dm755 $(BUILD_DIR)/openurl $(DESTDIR)$(BINDIR)/openurl
	install -d $(DESTDIR)$(SYSTEMD_USER_UNIT_DIR) $(DESTDIR)$(DBUS_SERVICE_DIR) $(DESTDIR)$(APPLICATIONS_DIR)
	$(SUBSTITUTE) systemd/openurld.service.in > $(DESTDIR)$(SYSTEMD_USER_UNIT_DIR)/openurld.service
	$(SUBSTITUTE) systemd/org.openurld.Dispatcher1.service.in > $(DESTDIR)$(DBUS_SERVICE_DIR)/org.openurld.Dispatcher1.service
	$(SUBSTITUTE) packaging/org.openurld.Dispatcher1.desktop.in > $(DESTDIR)$(APPLICATIONS_DIR)/org.openurld.Dispatcher1.desktop
	chmod 644 $(DESTDIR)$(SYSTEMD_USER_UNIT_DIR)/openurld.service $(DESTDIR)$(DBUS_SERVICE_DIR)/org.openurld.Dispatcher1.service $(DESTDIR)$(APPLICATIONS_DIR)/org.openurld.Dispatcher1.desktop
	install -Dm644 docs/org.openurld.Dispatcher1.xml $(DESTDIR)$(DBUS_INTERFACE_DIR)/org.openurld.Dispatcher1.xml
	install -Dm644 docs/man/openurld.8 $(DESTDIR)$(MANDIR)/man8/openurld.8
	install -Dm644 docs/man/openurl.1 $(DESTDIR)$(MANDIR)/man1/openurl.1

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/openurld $(DESTDIR)$(BINDIR)/openurl
	rm -f $(DESTDIR)$(SYSTEMD_USER_UNIT_DIR)/openurld.service
	rm -f $(DESTDIR)$(DBUS_SERVICE_DIR)/org.openurld.Dispatcher1.service
	rm -f $(DESTDIR)$(APPLICATIONS_DIR)/org.openurld.Dispatcher1.desktop
	rm -f $(DESTDIR)$(DBUS_INTERFACE_DIR)/org.openurld.Dispatcher1.xml
	rm -f $(DESTDIR)$(MANDIR)/man8/openurld.8 $(DESTDIR)$(MANDIR)/man1/openurl.1

# Per-user install, for people without root: ~/.local/bin must be on PATH.
USER_DIRS = PREFIX=$(HOME)/.local SYSTEMD_USER_UNIT_DIR=$(HOME)/.config/systemd/user \
	DBUS_SERVICE_DIR=$(HOME)/.local/share/dbus-1/services APPLICATIONS_DIR=$(HOME)/.local/share/applications

install-user: build
	$(MAKE) install-files $(USER_DIRS) DESTDIR=

uninstall-user:
	$(MAKE) uninstall $(USER_DIRS) DESTDIR=

test:
	scripts/test

run:
	scripts/run

bench:
	bench/run

clean:
	rm -rf .build
