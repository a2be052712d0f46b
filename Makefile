# Convenience targets for people and packagers; the scripts do the work.
.PHONY: all build run test bench clean

all: build

build:
	scripts/ensure-deps build
	swift build -c release

run:
	scripts/run

test:
	scripts/test

bench:
	bench/run

clean:
	rm -rf .build
