#!/bin/sh
# What a build needs, checked before it starts (in well under a second), so that a missing piece
# is one line saying what and how to get it, not an error minutes into a build.
#
#   scripts/preflight.sh         # what `make build`, `make install` and `make dist` need
#   scripts/preflight.sh demo    # and what `make demo` (and `make sandbox`) needs besides
#   scripts/preflight.sh test    # and what `make test` needs besides
#
# SWIFT names the swift driver (the Makefile passes its own). Silent when all is there; exit 1
# after naming everything missing.
swift=${SWIFT:-swift}
missing=0
need() {
    echo "make: $*" >&2
    missing=1
}

get_swift="install it from https://www.swift.org/install (or with swiftly: 'swiftly install latest')"
if ! command -v "$swift" >/dev/null 2>&1; then
    need "Swift 6 is needed to build, and '$swift' is not on PATH: $get_swift"
else
    # "Swift version 6.1.2 (swift-6.1.2-RELEASE)" on Linux; "Apple Swift version 6.0.3 (...)" on macOS.
    found=$("$swift" --version 2>/dev/null | sed -n 's/.*Swift version \([0-9][0-9]*\.[0-9][0-9]*\).*/\1/p' | head -n 1)
    if [ -z "$found" ]; then
        need "Swift 6 is needed to build, and '$swift --version' names no Swift version: $get_swift"
    elif [ "${found%%.*}" -lt 6 ]; then
        need "Swift 6 is needed to build, and '$swift' is Swift $found: $get_swift"
    fi
fi

case "${1:-}" in
demo | test)
    command -v curl >/dev/null 2>&1 \
        || need "curl is needed for make $1 (it plays the browser at the login): sudo apt-get install curl (Fedora: sudo dnf install curl; macOS has it)"
    ;;
esac
if [ "${1:-}" = test ] && ! command -v jq >/dev/null 2>&1; then
    need "jq is needed for make test (the README recipes' tests run it): sudo apt-get install jq (Fedora: sudo dnf install jq; macOS: brew install jq)"
fi
exit $missing
