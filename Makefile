# spotify-toolkit: build, test, docs, install. `make test` is what CI runs.
PREFIX ?= /usr/local
DESTDIR ?=
SWIFT ?= swift
# The tools `make install` installs, each a link to the one binary it installs, spotify-toolkit
# (fake-spotify, toolkit-docs and document-store-writer are for development only).
TOOLS := spotify-auth spotify-playlists spotify-tracks songcount spotify-nowplaying routine-link
# What ships, from `make install` and `make dist` alike: the multi-call binary, release, on Linux
# with the Swift runtime linked in, so it runs with no toolchain (no RUNPATH into one); stripped.
# Built in a directory of its own: --static-swift-stdlib recompiles every module, so sharing
# .build/release with `make demo`'s build would rebuild everything at each switch.
# The layers of docs/ARCHITECTURE.md, held by the compiler: a target that imports another it does
# not declare as a dependency does not build (a ToolkitCLI → LoopbackHTTP import fails here).
LAYERS := --explicit-target-dependency-import-check error
SHIP_FLAGS := $(LAYERS) -c release --scratch-path .build/ship $(if $(filter Linux,$(shell uname -s)),--static-swift-stdlib)
STRIP ?= strip

BINDIR := $(DESTDIR)$(PREFIX)/bin
MANDIR := $(DESTDIR)$(PREFIX)/share/man/man1
BASHDIR := $(DESTDIR)$(PREFIX)/share/bash-completion/completions
ZSHDIR := $(DESTDIR)$(PREFIX)/share/zsh/site-functions
FISHDIR := $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d

.PHONY: all preflight sync-version ship ship-path demo build release test test-small test-medium lint format docs check-docs install install-files uninstall bench bench-watch bench-tracks bench-cache bench-library bench-scale bench-writes bench-edits bench-network bench-startup bench-rate-limit bench-pipeline bench-requests sandbox dist clean

all: build

# What a build needs (Swift 6; for the demo curl, for the tests curl and jq), checked in well
# under a second, each thing missing named on one line with how to get it, before a build of
# minutes fails on it. Every building target runs it once, for the goal that asked.
preflight:
	@SWIFT='$(SWIFT)' scripts/preflight.sh $(PREFLIGHT_FOR)
demo sandbox: PREFLIGHT_FOR := demo
test: PREFLIGHT_FOR := test

# The version is written once, in VERSION. SwiftPM cannot hand a file to the compiler without a
# build plugin, so this copies it into Sources/ToolkitCLI/Version.swift (committed, rewritten only
# when it differs); VersionTests fails if the two ever disagree.
sync-version:
	@scripts/sync-version.sh

# The whole toolkit end to end against fake-spotify, in a throwaway home (scripts/demo.sh).
demo: release
	scripts/demo.sh "$$($(SWIFT) build -c release --show-bin-path)"

# A shell with fake-spotify running and a throwaway login, to try the tools by hand (scripts/demo.sh --shell).
sandbox: release
	scripts/demo.sh --shell "$$($(SWIFT) build -c release --show-bin-path)"

# Needs only the Swift toolchain: on Linux libcurl is loaded at run time (Sources/CCurl/include/CCurl.h).
build: preflight sync-version
	$(SWIFT) build $(LAYERS)

release: preflight sync-version
	$(SWIFT) build $(LAYERS) -c release

# The one binary that ships (only it: not the per-tool or development executables).
ship: preflight sync-version
	$(SWIFT) build $(SHIP_FLAGS) --product spotify-toolkit

# Where `make ship` puts spotify-toolkit (Benchmarks/startup.sh measures it).
ship-path:
	@$(SWIFT) build $(SHIP_FLAGS) --show-bin-path

# The end-to-end tests spawn the built executables, so build them first.
test: build
	$(SWIFT) test $(LAYERS)

# The inner loop (docs/ARCHITECTURE.md, "Tests"): the pure suites, or everything that runs in
# process. Neither spawns a tool, so neither builds the executables first. Swift Testing selects
# by test ID only, so scripts/test-size.sh turns the suites' size tags into an ID filter.
test-small: sync-version
	$(SWIFT) test $(LAYERS) --filter "$$(scripts/test-size.sh small)"

test-medium: sync-version
	$(SWIFT) test $(LAYERS) --filter "$$(scripts/test-size.sh small medium)"

# Lints what ships, as committed: the Swift sources with swift format (its configuration is
# .swift-format) and to 120 columns, string literals included (swift format leaves a long literal
# alone, so long prose goes in multi-line literals with \ continuations), every man page with groff,
# every completion script with its own shell, and the layer map (scripts/check-layers.sh: a target
# imports only its direct dependencies). A missing program is an error (CI installs them; see
# .ci/run).
lint:
	$(SWIFT) format lint --strict --recursive --parallel --configuration .swift-format Package.swift Sources Tests
	@long=$$(LC_ALL=C.UTF-8 grep -rnE '^.{121,}' --include='*.swift' Package.swift Sources); \
	[ -z "$$long" ] || { echo "$$long" | cut -c1-160 >&2; echo "lint: the lines above pass 120 columns" >&2; exit 1; }
	@SWIFT='$(SWIFT)' scripts/check-layers.sh
	@for tool in groff bash zsh fish; do command -v $$tool >/dev/null || { echo "lint: $$tool is not installed" >&2; exit 1; }; done
	@status=0; \
	for page in man/man1/*.1; do \
		out=$$(groff -man -ww -z "$$page" 2>&1); [ -z "$$out" ] || { echo "$$page: $$out" >&2; status=1; }; done; \
	for script in completions/bash/*; do bash -n "$$script" || status=1; done; \
	for script in completions/zsh/_*; do zsh -n "$$script" || status=1; done; \
	for script in completions/fish/*.fish; do fish --no-execute "$$script" || status=1; done; \
	[ $$status -eq 0 ] && echo "lint: Swift sources, man pages and completion scripts are clean"; exit $$status

# Formats the Swift sources in place with the committed configuration (make lint checks it).
format:
	$(SWIFT) format format --in-place --recursive --parallel --configuration .swift-format Package.swift Sources Tests

# Regenerates man/ and completions/ from the command specs in the core.
docs: build
	$(SWIFT) run toolkit-docs

check-docs: build
	$(SWIFT) run toolkit-docs --check

install: ship
	$(MAKE) install-files BUILT="$$($(SWIFT) build $(SHIP_FLAGS) --show-bin-path)"
	@[ -n "$(DESTDIR)" ] || case ":$$PATH:" in *":$(PREFIX)/bin:"*) ;; *) echo "note: $(PREFIX)/bin is not on PATH";; esac

# Copies what is already built in BUILT: spotify-toolkit, stripped, and a relative link per tool
# beside it (the install test uses the debug build, so it needs no release build of its own;
# scripts/dist.sh stages the tarball with it).
BUILT ?= .build/release
install-files:
	install -d $(BINDIR) $(MANDIR) $(BASHDIR) $(ZSHDIR) $(FISHDIR)
	install -m 0755 "$(BUILT)/spotify-toolkit" $(BINDIR)/spotify-toolkit
	$(STRIP) $(BINDIR)/spotify-toolkit
	for tool in $(TOOLS); do \
		rm -f $(BINDIR)/$$tool && ln -s spotify-toolkit $(BINDIR)/$$tool && \
		install -m 0644 man/man1/$$tool.1 $(MANDIR)/$$tool.1 && \
		install -m 0644 completions/bash/$$tool $(BASHDIR)/$$tool && \
		install -m 0644 completions/zsh/_$$tool $(ZSHDIR)/_$$tool && \
		install -m 0644 completions/fish/$$tool.fish $(FISHDIR)/$$tool.fish || exit 1; \
	done

uninstall:
	rm -f $(BINDIR)/spotify-toolkit
	for tool in $(TOOLS); do \
		rm -f $(BINDIR)/$$tool $(MANDIR)/$$tool.1 $(BASHDIR)/$$tool $(ZSHDIR)/_$$tool $(FISHDIR)/$$tool.fish; \
	done

bench: release
	Benchmarks/songcount-vs-jq.sh

bench-watch:
	Benchmarks/nowplaying-watch.sh

bench-tracks:
	Benchmarks/tracks-vs-spotipy.sh

bench-cache:
	Benchmarks/tracks-cache.sh

# A whole real-shaped library (150 playlists, 20,531 items) at 50 ms per request against a spotipy loop.
bench-library:
	Benchmarks/library-vs-spotipy.sh

# A library at 5,000, 100,000 and 400,000 items, no cache, cold and warm, beside spotipy;
# BENCH_SCALE_SIZES="50x100 500x200" for the two smaller ones only, BENCH_BEFORE=main for main's tools too.
bench-scale:
	Benchmarks/scale.sh

bench-writes:
	Benchmarks/playlist-writes.sh

# dedupe, sort and a filtered replace of a 3,000-item playlist at 50 ms per request: dates kept
# against --reset-dates, and against the floor of each plan.
bench-edits:
	Benchmarks/playlist-edits.sh

# The library read and a 10,000-item playlist over a TLS 1.3 + HTTP/2 front (nginx, a private CA)
# against spotipy: time, requests, TLS connections, bytes, floors.
bench-network:
	Benchmarks/network.sh

bench-startup:
	Benchmarks/startup.sh

# A whole library under a rolling rate limit (180 requests per 30 s; BENCH_RATE_WINDOW=180/3s
# scales it down): time, requests, refused requests and the limit's floor, against spotipy.
bench-rate-limit:
	Benchmarks/rate-limit.sh

# spotify-playlists | spotify-tracks at 300 ms per request against each stage alone: do the
# stages overlap (at most the slower stage plus one round trip)?
bench-pipeline:
	Benchmarks/pipeline.sh

# What each common command costs in requests, cold and warm, on a real-shaped library (150
# playlists, 20,531 items): the README's table. BENCH_CONFIG=debug reuses the debug build.
bench-requests:
	Benchmarks/requests.sh

# The release tarball: what make install installs, laid out as its PREFIX, with an install.sh
# (scripts/dist.sh); prints its size, unpacked size and start-up next to jq.
dist: ship
	scripts/dist.sh "$$($(SWIFT) build $(SHIP_FLAGS) --show-bin-path)"

clean:
	rm -rf .build
