# Convenience targets for people and packagers; the scripts do the work.
.PHONY: all build run test clean

all: build

build:
	scripts/ensure-deps build
	swift build -c release

run:
	scripts/run

test:
	scripts/test

clean:
	rm -rf .build
