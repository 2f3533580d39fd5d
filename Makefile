# recipes — build, test, demo and benchmarks. `make demo` and `make test` work on a fresh Debian machine with only
# Swift installed: the system packages they need are installed with apt-get when missing.
SHELL := /bin/bash
export PATH := $(PATH):/opt/swift/usr/bin
SWIFT ?= swift
BUILD ?= .build
PREFIX ?= /usr/local
# Debian packages the build, the tests and the demo need (the C libraries behind CCurl, CEditLine, CZlib and GRDB, the
# crontab command, the tools the tests start — python3 and openssl for a local HTTPS endpoint, systemd's
# systemd-analyze for the service units, iproute2's ip for the network namespaces of the watcher's tests and of the
# link with delay, libfaketime for the tests of a clock that jumps — and those the benchmarks use: curl, bc, GNU time).
APT_PACKAGES := libcurl4-openssl-dev libsqlite3-dev libedit-dev zlib1g-dev pkg-config binutils cron sqlite3 python3 openssl curl bc time \
	systemd iproute2 libfaketime
RELEASE_FLAGS := -c release --static-swift-stdlib
# Where `make demo` writes the build's output (the demo's own output stands alone on the terminal).
BUILD_LOG ?= $(BUILD)/build.log

.PHONY: all deps migrations build release strip client quiet-build debug test mealie-tests tsan demo bench install clean

all: build

## deps: install the Debian packages that are missing (with sudo when not root); does nothing when all are present
deps:
	@missing=""; for p in $(APT_PACKAGES); do \
	    dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	    echo "installing:$$missing"; \
	    if [ "$$(id -u)" = 0 ]; then sudo=""; else sudo="sudo"; fi; \
	    $$sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq $$missing >/dev/null; \
	fi
	@command -v $(SWIFT) >/dev/null || { echo "swift not found: install Swift 6 (https://swift.org/install) and put it on PATH"; exit 1; }

## migrations: embed migrations/*.sql into the binary's source
migrations:
	@./scripts/embed-migrations.sh

## build: release binaries in $(BUILD)/release (recipes, recipes-server), and stripped copies of them in $(BUILD)/stripped
## (what `make install` installs), their symbols in *.debug beside them
build: deps migrations release strip
	@echo "binaries: $(BUILD)/stripped/recipes $(BUILD)/stripped/recipes-server"

release:
	$(SWIFT) build $(RELEASE_FLAGS) --scratch-path $(BUILD) --product recipes
	$(SWIFT) build $(RELEASE_FLAGS) --scratch-path $(BUILD) --product recipes-server

## strip: copies of the release binaries without debug information and symbols, kept in recipes.debug and
## recipes-server.debug beside them (the binaries swift build made stay as they are: the next build links nothing again)
strip:
	@./scripts/strip-binaries.sh $(BUILD)/stripped $(BUILD)/release/recipes $(BUILD)/release/recipes-server

## client: the release `recipes` binary alone
client: deps migrations
	$(SWIFT) build $(RELEASE_FLAGS) --scratch-path $(BUILD) --product recipes

## quiet-build: the two release binaries the demo runs (`make release`), with the build's output in $(BUILD_LOG) and one
## line of progress on the terminal (`make install` afterwards strips copies of them and builds nothing again)
quiet-build: deps migrations
	@./scripts/quiet-build.sh $(BUILD_LOG) "building recipes and recipes-server (release; a first build takes 10-35 minutes on 2 cores)" \
	    $(MAKE) --no-print-directory release

debug: deps migrations
	$(SWIFT) build --scratch-path $(BUILD)

## test: the whole test suite (unit, store, REPL, end-to-end against the built binaries), in two runs: the targets whose
## tests run servers and clients inside the test process, then those that start processes (the built binaries, ip,
## python). A test that waits for a child process holds one of the concurrency pool's threads (as many as cores) while
## it waits; run beside each other on two cores, those waits held back the in-process tests' own tasks for half a minute.
IN_PROCESS_TESTS := LockingTests|OperationEngineTests|TransportTests|ConformanceTests|ReferenceServerTests|SystemFilesTests|RecipeModelsTests|RecipeSyncTests|FaultProxyTests|MealieAPITests
test: deps migrations
	$(SWIFT) build --build-tests --scratch-path $(BUILD)
	$(SWIFT) test --skip-build --scratch-path $(BUILD) --filter '^($(IN_PROCESS_TESTS))\.'
	$(SWIFT) test --skip-build --scratch-path $(BUILD) --skip '^($(IN_PROCESS_TESTS))\.'

## mealie-tests: the tests against a real Mealie 2.0, which they start from ../shared/peers/mealie (mealie-up.sh: 5-8 s,
## minutes the first time on a machine) and stop however they end; skipped, with the reason, when there is no peer
mealie-tests: deps migrations
	$(SWIFT) build --build-tests --scratch-path $(BUILD)
	@BUILD=$(BUILD) ./scripts/mealie-tests.sh

## tsan: the lock's, the operation engine's, the transport's concurrency and the sync engine's tests under ThreadSanitizer
## (three runs: the transport's cancellation tests bound how long a stalled transfer may hold others up, and the sync
## engine's tests would share the two cores with them; the resumable uploads, 20 MiB hashed under the sanitizer, run on
## their own, as beside them every other sync test waited more than 90 s for the cores)
tsan: deps
	$(SWIFT) test --scratch-path $(BUILD)-tsan --sanitize=thread --filter 'LockingTests|OperationEngineTests|TaskExecutorTests|CancellationTests'
	$(SWIFT) test --scratch-path $(BUILD)-tsan --sanitize=thread --filter RecipeSyncTests --skip ResumableUploadTests
	$(SWIFT) test --scratch-path $(BUILD)-tsan --sanitize=thread --filter ResumableUploadTests

## demo: the main job end to end on its own: a local server on loopback, sample recipes, a sync you can watch (the
## build's output goes to $(BUILD_LOG); both release binaries are in $(BUILD)/release afterwards)
demo: quiet-build
	@BUILD=$(BUILD) ./scripts/demo.sh

## bench: release benchmarks; figures written to BENCHMARKS.md with the machine and date
bench: build
	@BUILD=$(BUILD) ./scripts/bench.sh > BENCHMARKS.md.tmp && mv BENCHMARKS.md.tmp BENCHMARKS.md && cat BENCHMARKS.md

install: build
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 0755 $(BUILD)/stripped/recipes $(BUILD)/stripped/recipes-server $(DESTDIR)$(PREFIX)/bin/

clean:
	rm -rf $(BUILD) $(BUILD)-tsan
