# byteclub: build, run, test and benchmark.
SHELL := /bin/bash
SWIFT ?= swift
APT_PACKAGES := libcmark-gfm-dev libcmark-gfm-extensions-dev vim libncursesw5-dev libcurl4-openssl-dev libturbojpeg0-dev libspng-dev libwebp-dev libgif-dev librsvg2-dev libchafa-dev libglib2.0-dev tmux ncurses-term pkg-config curl rclone python3 iproute2 gcc gdb libsqlite3-dev ripgrep man-db chromium age
PYPI_PACKAGES := dropbox jsonschema pycrdt
BENCH_SIZE ?= 1GiB
# The WAN table (transfer-bench wan): 256 MiB each way on each link, as issue 27 asks.
WAN_SIZE ?= 256MiB

.PHONY: all build run test bench fuzz deps deps-system deps-python clean install uninstall torture

all: build

## deps: install the Debian and PyPI packages the build and the tests need, when any is missing.
## deps-system (Debian's) comes before any build; deps-python only before the tests, so make test
## installs it while Swift builds.
deps: deps-system deps-python

deps-system:
	@missing=""; \
	for p in $(APT_PACKAGES); do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "make deps: installing$$missing"; \
		SUDO=""; [ "$$(id -u)" = 0 ] || SUDO="sudo"; \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	fi

## The official Dropbox SDK (PyPI), which SDKInteropTests drives against byteclub serve,
## jsonschema, which checks every --json output against docs/schemas (scripts/validate-json), and
## pycrdt (Yrs, the Rust Yjs), which PycrdtInteropTests checks LiveText's updates against.
deps-python:
	@python3 -c 'import dropbox, jsonschema, pycrdt' 2>/dev/null || { \
		echo "make deps: installing the Dropbox Python SDK, jsonschema and pycrdt"; \
		SUDO=""; [ "$$(id -u)" = 0 ] || SUDO="sudo"; \
		python3 -m pip --version >/dev/null 2>&1 || { $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq python3-pip; }; \
		python3 -m pip install --quiet $(PYPI_PACKAGES) 2>/dev/null || python3 -m pip install --quiet --break-system-packages $(PYPI_PACKAGES); \
	}

build: deps
	$(SWIFT) build

run: build
	$(SWIFT) run byteclub

## test: every unit and end-to-end test, against real servers on loopback, as a pool of XCTest
## processes side by side (scripts/test-shards; `swift test --skip-build` runs them one after
## another, as before).
## The test build carries no debug information by default: from a fresh clone that is 13 % less
## compiler and linker time (956 against 831 CPU seconds, measured 2026-11-23), and a failing test
## still names its functions. `make test TEST_DEBUG_INFO=dwarf` gives line numbers to a debugger.
## Each module is compiled whole (-wmo, two code-generation threads) rather than in batches: from
## a fresh clone the test bundle then builds in 74 s instead of 117 (132 against 199 CPU seconds,
## 2026-11-24); a one-file change recompiles its module whole, which is seconds here.
## It builds only what the tests run (the byteclub binary, byteclub-torture and the test bundle,
## not the benches or the fuzzer). C is compiled without debug information (-g0) and without an
## index: on Linux SwiftPM finds the tests in the index store, so swiftc alone writes it, where
## SwiftPM looks. The two copies of BoringSSL (swift-crypto's, swift-nio-ssl's) are most of the
## C; from a fresh clone the byteclub binary then builds in 375 s instead of 442 (723 against 837
## CPU seconds, 2026-11-24), and the bundle still lists all its tests.
TEST_DEBUG_INFO ?= none
TEST_INDEX_STORE ?= $(CURDIR)/.build/$(shell uname -m)-unknown-linux-gnu/debug/index/store
TEST_BUILD_FLAGS ?= -debug-info-format $(TEST_DEBUG_INFO) -Xswiftc -wmo -Xswiftc -num-threads -Xswiftc 2 \
	-Xcc -g0 --disable-index-store -Xswiftc -index-store-path -Xswiftc $(TEST_INDEX_STORE)
## While the test bundle builds, a short torture schedule runs (TEST_TORTURE_KILLS kills; `make
## torture` runs 1,000), and the tests start when it has ended, so neither's deadlines meet the
## other's load on two cores. Its table comes before the tests' logs, and a loss fails the run
## as a failed test does. The Python packages (deps-python) install while Swift resolves
## and builds.
TEST_TORTURE_KILLS ?= 100
## Then, in the same slot, TEST_SIMULATION_SEEDS histories at simulation speed on each backend and
## each planted bug found within 100 seeds (docs/testing.md, "Simulation"): CPU the whole time,
## so they run beside the bundle's build rather than among the tests' deadlines.
TEST_SIMULATION_SEEDS ?= 50
## The live histories (two or three members typing in one live note, on a plain and an encrypted
## club) take about 10 ms a seed, so make test runs TEST_LIVE_SEEDS of each.
TEST_LIVE_SEEDS ?= 200
## Each member's app in the histories too (`--shells app`, and `both` beside the shell), the real
## app in-process on the history's clock: about 0.5–2.5 s a seed, so TEST_APP_SEEDS of each a backend.
## They and the planted bugs run as a second chain beside the kills and the shell's histories
## (.build/torture-apps.log): in one chain, the second core sat idle once the bundle was built.
TEST_APP_SEEDS ?= 20
SIMULATION_PLANTS = other-clubs-draft queue-left-at-moved-path burst-replayed-twice
test: deps-system
	@mkdir -p .build; \
	$(MAKE) --no-print-directory deps-python >.build/deps-python.log 2>&1 & python=$$!; \
	echo "$(SWIFT) build --product byteclub $(TEST_BUILD_FLAGS)"; \
	$(SWIFT) build --product byteclub $(TEST_BUILD_FLAGS) && $(SWIFT) build --product byteclub-torture $(TEST_BUILD_FLAGS); \
	built=$$?; [ $$built = 0 ] || { wait $$python; exit $$built; }; \
	{ .build/debug/byteclub-torture --kills $(TEST_TORTURE_KILLS) && \
	  .build/debug/byteclub-torture --simulate --seeds $(TEST_SIMULATION_SEEDS) --backends club,webdav,encrypted && \
	  .build/debug/byteclub-torture --simulate --seeds $(TEST_LIVE_SEEDS) --backends live,live-encrypted; \
	} >.build/torture.log 2>&1 & torture=$$!; \
	{ .build/debug/byteclub-torture --simulate --seeds $(TEST_APP_SEEDS) --backends club,webdav,encrypted --shells app && \
	  .build/debug/byteclub-torture --simulate --seeds $(TEST_APP_SEEDS) --backends club,webdav,encrypted --shells both && \
	  for bug in $(SIMULATION_PLANTS); do .build/debug/byteclub-torture --simulate --seeds 100 --backends club,webdav --plant $$bug || exit 1; done && \
	  .build/debug/byteclub-torture --simulate --seeds 100 --backends live,live-encrypted --plant typing-merged-as-text; \
	} >.build/torture-apps.log 2>&1 & apps=$$!; \
	echo "$(SWIFT) build --product byteclubPackageTests $(TEST_BUILD_FLAGS)"; \
	$(SWIFT) build --product byteclubPackageTests $(TEST_BUILD_FLAGS); built=$$?; \
	wait $$python; python=$$?; cat .build/deps-python.log; \
	wait $$torture; tortured=$$?; wait $$apps; appsran=$$?; [ $$tortured = 0 ] && tortured=$$appsran; \
	echo "=== torture: $(TEST_TORTURE_KILLS) kills, then $(TEST_SIMULATION_SEEDS) simulated histories a backend, $(TEST_LIVE_SEEDS) live ones a live backend, $(TEST_APP_SEEDS) with the apps (and beside the shell) a backend, and the planted bugs ==="; cat .build/torture.log .build/torture-apps.log; \
	if [ $$built = 0 ] && [ $$python = 0 ]; then scripts/test-shards; tests=$$?; else tests=1; fi; \
	[ $$tortured = 0 ] || { echo "=== torture failed (exit $$tortured); its last lines: ==="; cat .build/torture.log .build/torture-apps.log | grep -E "^(seed|loss|LOSS|Error|step|simulation|the planted)" | tail -n 12; }; \
	[ $$tests = 0 ] && [ $$tortured = 0 ]

## bench: Transfer against the curl CLI and URLSession; the club server against nginx, and over TLS beside plain HTTP; longpolls; WebDAV
## put/get against curl -T/-o on rclone serve webdav; the
## widgets, the editor, thumbnails, kitty picture bytes and note merges; the whole app (first frames, scrolling, progress, cancel, key echo);
## full-text search: the index against rg and grep over 10,000 notes; in the app, Ctrl-F key to results and key echo while indexing;
## a 1 MiB Markdown note in the app beside vim with syntax highlighting (open to first frame, key echo; app-bench markdown);
## folders: 10,000 notes in 500 folders, the tree from the cache, opening a folder, a 1,000-note folder moved beside mv (app-bench folders);
## the 100,000-note club, in one folder and in 500: cold start, every note indexed, search beside rg, put -r beside rclone, and its
## notes on rclone serve webdav (app-bench club, app-bench club --webdav), and after it an import beside cp -r, cat/links by title,
## a 512 MiB PUT to a Python peer beside curl -T (scripts/import-bench, one-note-bench, peer-upload-bench);
## live editing: the LaTeX-paper trace beside pycrdt, a 10,000-edit history opened, three members typing
## (app-bench together; scripts/live-trace finds the trace).
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
	.build/release/transfer-bench tls --size $(BENCH_SIZE)
	.build/release/transfer-bench live
	.build/release/transfer-bench webdav --size $(BENCH_SIZE)
	.build/release/transfer-bench wan --size $(WAN_SIZE)
	.build/release/ui-bench
	.build/release/ui-bench images
	.build/release/ui-bench pictures
	.build/release/ui-bench merge
	LIVETEXT_TRACE=$$(scripts/live-trace) .build/release/app-bench all $(BENCH_SIZE)
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

## install: the release binary, a man page per command and bash/zsh/fish completions, all generated
## from the argument parser, under PREFIX (default /usr/local; DESTDIR for packagers). BUILD_CONFIG=debug
## installs a debug build; INSTALL_FROM=path installs that binary without building (the install test
## does, with the binary it already has: a swift build inside `swift test` would wait for its lock).
## uninstall removes them all.
PREFIX ?= /usr/local
BUILD_CONFIG ?= release
INSTALL_FROM ?=
INSTALL_BIN = $(DESTDIR)$(PREFIX)/bin
INSTALL_MAN = $(DESTDIR)$(PREFIX)/share/man/man1
INSTALL_BASH = $(DESTDIR)$(PREFIX)/share/bash-completion/completions
INSTALL_ZSH = $(DESTDIR)$(PREFIX)/share/zsh/site-functions
INSTALL_FISH = $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
install:
	@[ -n "$(INSTALL_FROM)" ] || $(SWIFT) build -c $(BUILD_CONFIG) --product byteclub
	install -d $(INSTALL_BIN) $(INSTALL_MAN) $(INSTALL_BASH) $(INSTALL_ZSH) $(INSTALL_FISH)
	install -m 0755 "$(or $(INSTALL_FROM),$$($(SWIFT) build -c $(BUILD_CONFIG) --show-bin-path)/byteclub)" $(INSTALL_BIN)/byteclub
	scripts/man-pages $(INSTALL_BIN)/byteclub $(INSTALL_MAN)
	$(INSTALL_BIN)/byteclub --generate-completion-script bash > $(INSTALL_BASH)/byteclub
	$(INSTALL_BIN)/byteclub --generate-completion-script zsh > $(INSTALL_ZSH)/_byteclub
	$(INSTALL_BIN)/byteclub --generate-completion-script fish > $(INSTALL_FISH)/byteclub.fish
	@echo "installed byteclub in $(INSTALL_BIN) (man byteclub; completions for bash, zsh and fish)"

uninstall:
	rm -f $(INSTALL_BIN)/byteclub $(INSTALL_MAN)/byteclub.1 $(INSTALL_MAN)/byteclub-*.1
	rm -f $(INSTALL_BASH)/byteclub $(INSTALL_ZSH)/_byteclub $(INSTALL_FISH)/byteclub.fish

clean:
	rm -rf .build

## torture: saves, renames, outbox sends, uploads and restores against a club while the app, the
## agent or the server is killed (SIGKILL) at random moments; TORTURE_KILLS kills, invariants
## checked after each (docs/testing.md, "Torture"). The seed is printed first: replay a failure
## with `.build/debug/byteclub-torture --seed S --kills N`.
## Then the histories at simulation speed (issue 70; docs/testing.md, "Simulation"): SEEDS seeds on
## each backend (the club server's rule, WebDAV's, an encrypted club, and members typing in one
## live note on a plain and an encrypted club) in one process, 200 steps each; replay a failing seed with `byteclub-torture --simulate --backends B --first-seed S --seeds 1`.
## Then APP_SEEDS of them a backend with each member's app in them too (`--shells app`, and `both`
## beside the shell: docs/testing.md, "The apps in the simulation"), about 0.5–2.5 s a seed.
## Then the real-process generated histories, the slower outer check (issue 53; "Histories"):
## REAL_SEEDS seeds on each backend (the club server, rclone serve webdav, an encrypted club),
## HISTORY_STEPS steps each, from seed HISTORY_FIRST_SEED on; `make torture TORTURE_KILLS=0` runs
## the histories alone. A failing seed prints its history; replay it with HISTORY_SEED=S.
## Last, LiveText's histories (docs/live-text.md): LIVETEXT_HISTORIES generated concurrent
## histories converging, and as many each way against pycrdt (make test runs 300 and 200).
TORTURE_KILLS ?= 1000
LIVETEXT_HISTORIES ?= 10000
SEEDS ?= 1000
APP_SEEDS ?= 100
REAL_SEEDS ?= 20
HISTORY_STEPS ?= 200
HISTORY_FIRST_SEED ?= 1
torture: deps
	$(SWIFT) build --product byteclub $(TEST_BUILD_FLAGS)
	$(SWIFT) build --product byteclub-torture $(TEST_BUILD_FLAGS)
	[ "$(TORTURE_KILLS)" = 0 ] || .build/debug/byteclub-torture --kills $(TORTURE_KILLS)
	.build/debug/byteclub-torture --simulate --seeds $(SEEDS) --backends club,webdav,encrypted,live,live-encrypted
	.build/debug/byteclub-torture --simulate --seeds $(APP_SEEDS) --backends club,webdav,encrypted --shells app
	.build/debug/byteclub-torture --simulate --seeds $(APP_SEEDS) --backends club,webdav,encrypted --shells both
	$(SWIFT) build --product byteclubPackageTests $(TEST_BUILD_FLAGS)
	HISTORY_SEEDS=$(REAL_SEEDS) HISTORY_STEPS=$(HISTORY_STEPS) HISTORY_FIRST_SEED=$(HISTORY_FIRST_SEED) \
		.build/debug/byteclubPackageTests.xctest ByteClubAppTests.HistoryClubTests,ByteClubAppTests.HistoryWebdavTests,ByteClubAppTests.HistoryEncryptedTests
	LIVETEXT_HISTORIES=$(LIVETEXT_HISTORIES) .build/debug/byteclubPackageTests.xctest LiveTextTests.ConvergenceTests,LiveTextTests.PycrdtInteropTests
