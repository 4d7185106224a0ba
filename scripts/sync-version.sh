#!/bin/sh
# Copies VERSION, the one place the version is written, into the Swift source that `--version`
# and the man pages read. Rewrites the file only when it differs, so an unchanged version
# rebuilds nothing. `make` runs this before every build; VersionTests fails on drift.
set -eu
cd "$(dirname "$0")/.."
version=$(tr -d ' \n' < VERSION)
case "$version" in
    [0-9]*.[0-9]*.[0-9]*) ;;
    *) echo "sync-version: VERSION must be MAJOR.MINOR.PATCH, not '$version'" >&2; exit 65 ;;
esac
target=Sources/ToolkitCLI/Version.swift
wanted=$(cat <<SWIFT
// Written by scripts/sync-version.sh from VERSION (\`make\` runs it); edit VERSION, not this.
package enum Toolkit {
    package static let version = "$version"
}
SWIFT
)
if [ ! -f "$target" ] || [ "$(cat "$target")" != "$wanted" ]; then
    printf '%s\n' "$wanted" > "$target"
    echo "sync-version: $target now says $version" >&2
fi
