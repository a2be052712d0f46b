# Build and install openurld. The scripts do the work; this is the interface
# packagers expect.
#
#   make                        build (release, Swift runtime linked statically; the
#                               front of openurl with Embedded Swift, Front/build)
#   make install                copy the built files below PREFIX (default /usr/local),
#                               honouring DESTDIR; never compiles, never installs packages
#   make install-user           the same for one user, into ~/.local/bin, $XDG_DATA_HOME
#                               and $XDG_CONFIG_HOME (defaults ~/.local/share, ~/.config)
#   make uninstall              remove what install put there (same PREFIX and DESTDIR)
#   make dist                   openurld-VERSION.tar.gz of HEAD, the same bytes every time
#   make test | run | bench     scripts/test, scripts/run, bench/run

# The version is defined once, in the daemon's source; a test checks that
# the packages, the man pages, the metainfo and the changelog agree.
VERSION := $(shell sed -n 's/.*static let version = "\(.*\)"/\1/p' Sources/DispatcherAPI/DispatcherAPI.swift)

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
# The multi-call binary and the full CLI the front hands on to (Arch: /usr/lib).
LIBEXECDIR ?= $(PREFIX)/libexec
DATADIR ?= $(PREFIX)/share
MANDIR ?= $(DATADIR)/man
DOCDIR ?= $(DATADIR)/doc/openurld
SYSTEMD_USER_UNIT_DIR ?= $(PREFIX)/lib/systemd/user
DBUS_SERVICE_DIR ?= $(DATADIR)/dbus-1/services
DBUS_INTERFACE_DIR ?= $(DATADIR)/dbus-1/interfaces
APPLICATIONS_DIR ?= $(DATADIR)/applications
METAINFO_DIR ?= $(DATADIR)/metainfo
# Seconds without handlers after which the activated daemon exits.
IDLE_EXIT ?= 300
# Release, the Swift runtime linked in (no $ORIGIN rpath: nothing is loaded from
# beside the binary), the functions openurld runs laid out together:
# scripts/release-flags says which flags and why.
SWIFT_BUILD_FLAGS ?= $(shell scripts/release-flags)
# Where `make` left the binaries (swift build -c release); tests point this at a debug build.
BUILD_DIR ?= .build/release

SUBSTITUTE = sed -e 's|@BINDIR@|$(BINDIR)|g' -e 's|@IDLE_EXIT@|$(IDLE_EXIT)|g'
# (The interface XML is installed under dbus-1/interfaces, the licence files by each package.)
DOCS = README.md CHANGELOG.md docs/chooser.md docs/dbus-api.md docs/rules.md docs/detect.md docs/xdg-resolution.md \
	docs/desktop-integration.md docs/reliability.md

.PHONY: all build install install-files install-chooser install-user uninstall uninstall-user dist test run bench clean

all: build

# Where the front finds the full CLI, relative to BINDIR (Front/build's FULL-CLI).
FULL_CLI_FROM_BINDIR = $(shell realpath -m --relative-to=$(BINDIR) $(LIBEXECDIR))/openurld/openurl

# Two programs to install, and the chooser: the multi-call binary (openurld,
# openurld-chooser-dmenu and the full openurl, chosen by argv[0]) and the fast
# front of openurl (Embedded Swift, Front/build).
build:
	scripts/ensure-deps build
	swift build $(SWIFT_BUILD_FLAGS) --product openurld-multicall
	Front/build $(BUILD_DIR)/front/bin/openurl $(FULL_CLI_FROM_BINDIR)
	[ -n "$$OPENURLD_NO_CHOOSER" ] || swift build $(SWIFT_BUILD_FLAGS) --product openurld-chooser

# Installing copies what `make` built: as root, or under sudo's secure_path,
# there may be no Swift toolchain, and nothing is compiled or installed here.
install: install-files install-chooser

install-files:
	@for program in openurld-multicall front/bin/openurl; do \
		[ -x "$(BUILD_DIR)/$$program" ] || { echo "make install: $(BUILD_DIR)/$$program is not built; run 'make' first (as yourself, with the Swift toolchain on PATH)" >&2; exit 1; }; \
	done
	install -Dm755 $(BUILD_DIR)/openurld-multicall $(DESTDIR)$(LIBEXECDIR)/openurld/openurld-multicall
	ln -sf openurld-multicall $(DESTDIR)$(LIBEXECDIR)/openurld/openurl
	install -Dm755 $(BUILD_DIR)/front/bin/openurl $(DESTDIR)$(BINDIR)/openurl
	ln -sfr $(DESTDIR)$(LIBEXECDIR)/openurld/openurld-multicall $(DESTDIR)$(BINDIR)/openurld
	ln -sfr $(DESTDIR)$(LIBEXECDIR)/openurld/openurld-multicall $(DESTDIR)$(BINDIR)/openurld-chooser-dmenu
	install -d $(DESTDIR)$(SYSTEMD_USER_UNIT_DIR) $(DESTDIR)$(DBUS_SERVICE_DIR) $(DESTDIR)$(APPLICATIONS_DIR)
	$(SUBSTITUTE) systemd/openurld.service.in > $(DESTDIR)$(SYSTEMD_USER_UNIT_DIR)/openurld.service
	$(SUBSTITUTE) systemd/org.openurld.Dispatcher1.service.in > $(DESTDIR)$(DBUS_SERVICE_DIR)/org.openurld.Dispatcher1.service
	$(SUBSTITUTE) packaging/org.openurld.Dispatcher1.desktop.in > $(DESTDIR)$(APPLICATIONS_DIR)/org.openurld.Dispatcher1.desktop
	chmod 644 $(DESTDIR)$(SYSTEMD_USER_UNIT_DIR)/openurld.service $(DESTDIR)$(DBUS_SERVICE_DIR)/org.openurld.Dispatcher1.service $(DESTDIR)$(APPLICATIONS_DIR)/org.openurld.Dispatcher1.desktop
	install -Dm644 docs/org.openurld.Dispatcher1.xml $(DESTDIR)$(DBUS_INTERFACE_DIR)/org.openurld.Dispatcher1.xml
	install -Dm644 docs/org.openurld.Chooser1.xml $(DESTDIR)$(DBUS_INTERFACE_DIR)/org.openurld.Chooser1.xml
	install -Dm644 packaging/org.openurld.Dispatcher1.metainfo.xml $(DESTDIR)$(METAINFO_DIR)/org.openurld.Dispatcher1.metainfo.xml
	install -Dm644 docs/man/openurld.1 $(DESTDIR)$(MANDIR)/man1/openurld.1
	install -Dm644 docs/man/openurl.1 $(DESTDIR)$(MANDIR)/man1/openurl.1
	install -Dm644 docs/man/openurld-chooser-dmenu.1 $(DESTDIR)$(MANDIR)/man1/openurld-chooser-dmenu.1
	install -d $(DESTDIR)$(DOCDIR)/examples
	install -m644 $(DOCS) $(DESTDIR)$(DOCDIR)/
	install -m644 docs/examples/90-ask.rules $(DESTDIR)$(DOCDIR)/examples/
	install -d $(DESTDIR)$(DOCDIR)/screenshots
	install -m644 docs/screenshots/chooser.png docs/screenshots/preferences.png $(DESTDIR)$(DOCDIR)/screenshots/

# The GTK chooser, its activation file and its desktop file: their own
# package (openurld-chooser), so a headless install needs no GTK.
install-chooser:
	@[ -x "$(BUILD_DIR)/openurld-chooser" ] || { echo "make install-chooser: $(BUILD_DIR)/openurld-chooser is not built; run 'make' first (it needs libadwaita-1-dev)" >&2; exit 1; }
	install -Dm755 $(BUILD_DIR)/openurld-chooser $(DESTDIR)$(BINDIR)/openurld-chooser
	install -Dm644 docs/man/openurld-chooser.1 $(DESTDIR)$(MANDIR)/man1/openurld-chooser.1
	install -Dm644 packaging/org.openurld.Chooser1.metainfo.xml $(DESTDIR)$(METAINFO_DIR)/org.openurld.Chooser1.metainfo.xml
	install -d $(DESTDIR)$(DBUS_SERVICE_DIR) $(DESTDIR)$(APPLICATIONS_DIR)
	$(SUBSTITUTE) systemd/org.openurld.Chooser1.service.in > $(DESTDIR)$(DBUS_SERVICE_DIR)/org.openurld.Chooser1.service
	$(SUBSTITUTE) packaging/org.openurld.Chooser1.desktop.in > $(DESTDIR)$(APPLICATIONS_DIR)/org.openurld.Chooser1.desktop
	chmod 644 $(DESTDIR)$(DBUS_SERVICE_DIR)/org.openurld.Chooser1.service $(DESTDIR)$(APPLICATIONS_DIR)/org.openurld.Chooser1.desktop

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/openurld $(DESTDIR)$(BINDIR)/openurl $(DESTDIR)$(BINDIR)/openurld-chooser-dmenu
	rm -f $(DESTDIR)$(LIBEXECDIR)/openurld/openurld-multicall $(DESTDIR)$(LIBEXECDIR)/openurld/openurl
	-rmdir $(DESTDIR)$(LIBEXECDIR)/openurld 2>/dev/null
	rm -f $(DESTDIR)$(BINDIR)/openurld-chooser $(DESTDIR)$(DBUS_SERVICE_DIR)/org.openurld.Chooser1.service
	rm -f $(DESTDIR)$(APPLICATIONS_DIR)/org.openurld.Chooser1.desktop $(DESTDIR)$(DBUS_INTERFACE_DIR)/org.openurld.Chooser1.xml
	rm -f $(DESTDIR)$(METAINFO_DIR)/org.openurld.Chooser1.metainfo.xml
	rm -f $(DESTDIR)$(SYSTEMD_USER_UNIT_DIR)/openurld.service
	rm -f $(DESTDIR)$(DBUS_SERVICE_DIR)/org.openurld.Dispatcher1.service
	rm -f $(DESTDIR)$(APPLICATIONS_DIR)/org.openurld.Dispatcher1.desktop
	rm -f $(DESTDIR)$(DBUS_INTERFACE_DIR)/org.openurld.Dispatcher1.xml
	rm -f $(DESTDIR)$(METAINFO_DIR)/org.openurld.Dispatcher1.metainfo.xml
	rm -f $(DESTDIR)$(MANDIR)/man1/openurld.1 $(DESTDIR)$(MANDIR)/man1/openurl.1
	rm -f $(DESTDIR)$(MANDIR)/man1/openurld-chooser.1 $(DESTDIR)$(MANDIR)/man1/openurld-chooser-dmenu.1
	rm -f $(addprefix $(DESTDIR)$(DOCDIR)/,$(notdir $(DOCS))) $(DESTDIR)$(DOCDIR)/examples/90-ask.rules
	rm -f $(DESTDIR)$(DOCDIR)/screenshots/chooser.png $(DESTDIR)$(DOCDIR)/screenshots/preferences.png
	-rmdir $(DESTDIR)$(DOCDIR)/examples $(DESTDIR)$(DOCDIR)/screenshots 2>/dev/null
	-rmdir $(DESTDIR)$(DOCDIR) 2>/dev/null

# Per-user install, for people without root: ~/.local/bin must be on PATH.
USER_DATA = $(or $(XDG_DATA_HOME),$(HOME)/.local/share)
USER_CONFIG = $(or $(XDG_CONFIG_HOME),$(HOME)/.config)
USER_DIRS = PREFIX=$(HOME)/.local LIBEXECDIR=$(HOME)/.local/libexec DATADIR=$(USER_DATA) SYSTEMD_USER_UNIT_DIR=$(USER_CONFIG)/systemd/user

install-user:
	$(MAKE) install-files $(USER_DIRS) DESTDIR=
	[ ! -x "$(BUILD_DIR)/openurld-chooser" ] || $(MAKE) install-chooser $(USER_DIRS) DESTDIR=

uninstall-user:
	$(MAKE) uninstall $(USER_DIRS) DESTDIR=

# The committed tree at HEAD, with file times set to the commit's and no
# timestamp in the gzip header: the same bytes every time.
DIST_DIR ?= .
dist:
	git archive --format=tar --prefix=openurld-$(VERSION)/ HEAD | gzip -n -9 > $(DIST_DIR)/openurld-$(VERSION).tar.gz
	@echo $(DIST_DIR)/openurld-$(VERSION).tar.gz

test:
	scripts/test

run:
	scripts/run

bench:
	bench/run

clean:
	rm -rf .build
