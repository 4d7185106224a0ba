#!/usr/bin/env bash
# The layer map of docs/ARCHITECTURE.md, held: a file may import only the package targets its own
# target declares as direct dependencies in Package.swift. The build's
# --explicit-target-dependency-import-check admits an import of a dependency's dependency (Tools
# importing HTTPClient through SpotifyClient built), so a layer could be skipped unseen. Needs jq.
set -euo pipefail
cd "$(dirname "$0")/.."
package=$("${SWIFT:-swift}" package dump-package)
own=" $(jq -r '[.targets[].name] | join(" ")' <<<"$package") "
status=0
while IFS='|' read -r name type path dependencies; do
    if [ -z "$path" ]; then
        if [ "$type" = test ]; then path="Tests/$name"; else path="Sources/$name"; fi
    fi
    while IFS=: read -r file line imported; do
        case "$own" in *" $imported "*) ;; *) continue ;; esac
        case " $dependencies " in
            *" $imported "*) ;;
            *) echo "$file:$line: $name imports $imported, which is not among its dependencies in Package.swift" >&2
               status=1 ;;
        esac
    done < <(grep -rnE --include='*.swift' '^[[:space:]]*(@[A-Za-z_]+[[:space:]]+)*((public|package|internal)[[:space:]]+)?import[[:space:]]+[A-Za-z_]+' "$path" \
        | sed -E 's/^([^:]+):([0-9]+):.*import[[:space:]]+([A-Za-z_]+).*/\1:\2:\3/')
done < <(jq -r '.targets[] | [.name, .type, (.path // ""),
    ([.dependencies[] | (.byName // .target // .product)[0]] | join(" "))] | join("|")' <<<"$package")
[ $status -eq 0 ] && echo "layers: every import of a package target is a declared direct dependency"
exit $status
