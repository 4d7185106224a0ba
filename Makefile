# spotify-toolkit: build, test, docs, install. `make test` is what CI runs.
PREFIX ?= /usr/local
DESTDIR ?=
SWIFT ?= swift
# The tools `make install` installs (fake-spotify, toolkit-docs and document-store-writer are for development only).
TOOLS := spotify-auth songcount

BINDIR := $(DESTDIR)$(PREFIX)/bin
MANDIR := $(DESTDIR)$(PREFIX)/share/man/man1
BASHDIR := $(DESTDIR)$(PREFIX)/share/bash-completion/completions
ZSHDIR := $(DESTDIR)$(PREFIX)/share/zsh/site-functions
FISHDIR := $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d

.PHONY: all build release test docs check-docs install uninstall bench clean

all: build

build:
	$(SWIFT) build

release:
	$(SWIFT) build -c release

# The end-to-end tests spawn the built executables, so build them first.
test: build
	$(SWIFT) test

# Regenerates man/ and completions/ from the command specs in the core.
docs: build
	$(SWIFT) run toolkit-docs

check-docs: build
	$(SWIFT) run toolkit-docs --check

install: release
	install -d $(BINDIR) $(MANDIR) $(BASHDIR) $(ZSHDIR) $(FISHDIR)
	for tool in $(TOOLS); do \
		install -m 0755 "$$($(SWIFT) build -c release --show-bin-path)/$$tool" $(BINDIR)/$$tool && \
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

clean:
	rm -rf .build
