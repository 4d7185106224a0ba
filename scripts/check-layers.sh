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

# Inside Tools, where no target boundary helps: a tool's folder names no type another tool's
# folder declares, and Tools/Shared and Tools/Routines (the domain routine-link and spotify-auth
# share) name no tool's. Code two tools share moves down (docs/ARCHITECTURE.md, "Rules"). A
# declared type is one at the start of a line (a top-level declaration: the tool's namespace enum,
# or a type of its own); nested types are reached through the namespace, so naming it is enough.
declared() {
    grep -rhoE --include='*.swift' \
        '^((package|internal|fileprivate|private|final|indirect) +)*(struct|enum|class|actor|protocol|typealias) +[A-Z][A-Za-z0-9_]*' \
        "$1" | awk '{print $NF}' | sort -u
}
lower=" Shared Routines "
for user in Sources/Tools/*/; do
    user=${user%/}
    mine=$(declared "$user")
    names=$(for other in Sources/Tools/*/; do
        other=${other%/}
        [ "$other" = "$user" ] && continue
        case "$lower" in *" ${other##*/} "*) continue ;; esac  # everyone may use what lies below
        declared "$other"
    done | sort -u | comm -23 - <(printf '%s\n' "$mine"))
    [ -n "$names" ] || continue
    pattern=$(paste -s -d '|' <<<"$names")
    while IFS= read -r hit; do
        code=${hit#*:*:}
        code=${code%%//*}
        grep -qwE "$pattern" <<<"$code" || continue  # the name was in a comment
        echo "$hit" | cut -c1-200 >&2
        echo "  ${user#Sources/}: names a type of another tool's folder ($(grep -owE "$pattern" <<<"$code" \
            | paste -s -d ' ' -)); move what they share to Tools/Shared or lower" >&2
        status=1
    done < <(grep -rnwE --include='*.swift' "$pattern" "$user" || true)
done
[ $status -eq 0 ] && echo "layers: no tool's folder reaches into another's"
exit $status
