# spotify-toolkit: build, test, docs, install. `make test` is what CI runs.
PREFIX ?= /usr/local
DESTDIR ?=
SWIFT ?= swift
# The tools `make install` installs (fake-spotify, toolkit-docs and document-store-writer are for development only).
TOOLS := spotify-auth spotify-playlists spotify-tracks songcount spotify-nowplaying routine-link

BINDIR := $(DESTDIR)$(PREFIX)/bin
MANDIR := $(DESTDIR)$(PREFIX)/share/man/man1
BASHDIR := $(DESTDIR)$(PREFIX)/share/bash-completion/completions
ZSHDIR := $(DESTDIR)$(PREFIX)/share/zsh/site-functions
FISHDIR := $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d

.PHONY: all demo build release test lint format docs check-docs install install-files uninstall bench bench-watch bench-tracks bench-cache bench-library bench-writes bench-edits bench-startup sandbox dist clean

all: build

# The whole toolkit end to end against fake-spotify, in a throwaway home (scripts/demo.sh).
demo: release
	scripts/demo.sh "$$($(SWIFT) build -c release --show-bin-path)"

# A shell with fake-spotify running and a throwaway login, to try the tools by hand (scripts/demo.sh --shell).
sandbox: release
	scripts/demo.sh --shell "$$($(SWIFT) build -c release --show-bin-path)"

# Needs only the Swift toolchain: on Linux libcurl is loaded at run time (Sources/CCurl/include/CCurl.h).
build:
	$(SWIFT) build

release:
	$(SWIFT) build -c release

# The end-to-end tests spawn the built executables, so build them first.
test: build
	$(SWIFT) test

# Lints what ships, as committed: the Swift sources with swift format (its configuration is
# .swift-format), every man page with groff, every completion script with its own shell. A missing
# program is an error (CI installs them; see .ci/run).
lint:
	$(SWIFT) format lint --strict --recursive --parallel --configuration .swift-format Package.swift Sources Tests
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

install: release
	$(MAKE) install-files BUILT="$$($(SWIFT) build -c release --show-bin-path)"

# Copies what is already built in BUILT (the install test uses the debug build, so it needs no
# release build of its own).
BUILT ?= .build/release
install-files:
	install -d $(BINDIR) $(MANDIR) $(BASHDIR) $(ZSHDIR) $(FISHDIR)
	for tool in $(TOOLS); do \
		install -m 0755 "$(BUILT)/$$tool" $(BINDIR)/$$tool && \
		install -m 0644 man/man1/$$tool.1 $(MANDIR)/$$tool.1 && \
		install -m 0644 completions/bash/$$tool $(BASHDIR)/$$tool && \
		install -m 0644 completions/zsh/_$$tool $(ZSHDIR)/_$$tool && \
		install -m 0644 completions/fish/$$tool.fish $(FISHDIR)/$$tool.fish || exit 1; \
	done

uninstall:
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

# A whole real-shaped library (150 playlists, 20,531 items) at 50 ms per request against a spotipy loop (issue 18).
bench-library:
	Benchmarks/library-vs-spotipy.sh

bench-writes:
	Benchmarks/playlist-writes.sh

# dedupe, sort and a filtered replace of a 3,000-item playlist at 50 ms per request: dates kept
# against --reset-dates, and against the floor of each plan (issue 24).
bench-edits:
	Benchmarks/playlist-edits.sh

bench-startup:
	Benchmarks/startup.sh

# A release tarball with --static-swift-stdlib binaries, man pages and completions (scripts/dist.sh).
dist:
	scripts/dist.sh

clean:
	rm -rf .build
