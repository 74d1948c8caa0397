# byteclub: build, run, test and benchmark.
SHELL := /bin/bash
SWIFT ?= swift
APT_PACKAGES := libcmark-gfm-dev libcmark-gfm-extensions-dev vim libncursesw5-dev libcurl4-openssl-dev libturbojpeg0-dev libchafa-dev libglib2.0-dev tmux ncurses-term pkg-config curl rclone python3 iproute2 gcc libsqlite3-dev ripgrep chromium
PYPI_PACKAGES := dropbox
BENCH_SIZE ?= 1GiB
# The WAN table (transfer-bench wan): 256 MiB each way on each link, as issue 27 asks.
WAN_SIZE ?= 256MiB

.PHONY: all build run test bench fuzz deps clean

all: build

## deps: install the Debian and PyPI packages the build and the tests need, when any is missing.
deps:
	@missing=""; \
	for p in $(APT_PACKAGES); do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "make deps: installing$$missing"; \
		SUDO=""; [ "$$(id -u)" = 0 ] || SUDO="sudo"; \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	fi
	@# The official Dropbox SDK (PyPI), which SDKInteropTests drives against byteclub serve.
	@python3 -c 'import dropbox' 2>/dev/null || { \
		echo "make deps: installing the Dropbox Python SDK"; \
		SUDO=""; [ "$$(id -u)" = 0 ] || SUDO="sudo"; \
		python3 -m pip --version >/dev/null 2>&1 || { $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq python3-pip; }; \
		python3 -m pip install --quiet $(PYPI_PACKAGES) 2>/dev/null || python3 -m pip install --quiet --break-system-packages $(PYPI_PACKAGES); \
	}

build: deps
	$(SWIFT) build

run: build
	$(SWIFT) run byteclub

## test: every unit and end-to-end test, against real servers on loopback, in shards side by side
## (scripts/test-shards; `swift test --skip-build` runs them one after another, as before).
test: deps
	$(SWIFT) build --build-tests
	scripts/test-shards

## bench: Transfer against the curl CLI and URLSession; the club server against nginx; longpolls; WebDAV
## put/get against curl -T/-o on rclone serve webdav; the
## widgets, the editor, thumbnails, kitty picture bytes and note merges; the whole app (first frames, scrolling, progress, cancel, key echo);
## full-text search: the index against rg and grep over 10,000 notes; in the app, Ctrl-F key to results and key echo while indexing;
## a 1 MiB Markdown note in the app beside vim with syntax highlighting (open to first frame, key echo; app-bench markdown).
bench: deps
	@command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || { SUDO=""; [ "$$(id -u)" = 0 ] || SUDO="sudo"; \
		$$SUDO apt-get install -y -qq nginx-light; }
	$(SWIFT) build -c release --product transfer-bench
	$(SWIFT) build -c release --product ui-bench
	$(SWIFT) build -c release --product app-bench
	$(SWIFT) build -c release --product search-bench
	$(SWIFT) build -c release --product byteclub
	.build/release/transfer-bench compare --size $(BENCH_SIZE)
	.build/release/transfer-bench server --size $(BENCH_SIZE)
	.build/release/transfer-bench live
	.build/release/transfer-bench webdav --size $(BENCH_SIZE)
	.build/release/transfer-bench wan --size $(WAN_SIZE)
	.build/release/ui-bench
	.build/release/ui-bench images
	.build/release/ui-bench pictures
	.build/release/ui-bench merge
	.build/release/app-bench all $(BENCH_SIZE)
	.build/release/search-bench

## fuzz: every libFuzzer target (byteclub-fuzz) for FUZZ_TIME seconds each over its seeds in Tests/Fuzz;
## findings go to $(FUZZ_SCRATCH)/fuzz-out/findings and make the target fail. BYTECLUB_FUZZ=1 turns on
## libFuzzer's coverage and AddressSanitizer in the parsing modules only (Package.swift).
FUZZ_TIME ?= 60
FUZZ_CONFIG ?= release
FUZZ_SCRATCH ?= .build-fuzz
FUZZ_TARGETS ?=
FUZZER_LIB = $(shell dirname $$(dirname $$(readlink -f $$(command -v $(SWIFT)))))/lib/clang/*/lib/linux/libclang_rt.fuzzer_no_main-$(shell uname -m).a
fuzz:
	BYTECLUB_FUZZ=1 $(SWIFT) build -c $(FUZZ_CONFIG) --scratch-path $(FUZZ_SCRATCH) --product byteclub-fuzz \
		-Xlinker $(wildcard $(FUZZER_LIB)) -Xlinker -lstdc++
	FUZZ_TIME=$(FUZZ_TIME) FUZZ_OUT=$(FUZZ_SCRATCH)/fuzz-out Tests/Fuzz/run-fuzz.sh \
		$(FUZZ_SCRATCH)/$(FUZZ_CONFIG)/byteclub-fuzz $(FUZZ_TARGETS)

clean:
	rm -rf .build
