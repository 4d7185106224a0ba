#!/bin/sh
# Prints a `swift test --filter` pattern selecting the suites of the given sizes, from the tags on
# their `@Suite` lines (docs/ARCHITECTURE.md, "Tests"): `swift test --filter "$(scripts/test-size.sh
# small)"`. Swift Testing's --filter matches test IDs (Module.Suite/test), never tags, so the tags
# are read here; SizeTagTests keeps every suite on one `@Suite(... .tags(.SIZE) ...) struct Name`
# line, so this reading stays whole.
set -eu
[ $# -gt 0 ] || { echo "usage: scripts/test-size.sh small|medium|large ..." >&2; exit 64; }
sizes=""
for size in "$@"; do
    case "$size" in
    small | medium | large) sizes="$sizes${sizes:+|}$size" ;;
    *) echo "test-size: '$size' is not a size (small, medium, large)" >&2; exit 64 ;;
    esac
done
cd "$(dirname "$0")/.."
pattern=$(
    for file in Tests/*/*.swift Tests/*/*/*.swift; do
        [ -f "$file" ] || continue
        module=${file#Tests/}
        module=${module%%/*}
        sed -n -E "s/^@Suite\(.*\.tags\(\.($sizes)\).*\) *(final +)?(struct|class|enum|actor) +([A-Za-z0-9_]+).*/$module.\4/p" "$file"
    done | sort -u | sed 's/\./\\./' | paste -s -d '|' -
)
[ -n "$pattern" ] || { echo "test-size: no suite is tagged $*" >&2; exit 1; }
printf '^(%s)(/|$)\n' "$pattern"
