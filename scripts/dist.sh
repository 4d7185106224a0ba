#!/usr/bin/env bash
# The release tarball: exactly what `make install` installs (it stages with `make install-files`):
# the one binary, spotify-toolkit (release; on Linux --static-swift-stdlib, so no Swift runtime is
# needed where it runs; stripped), a relative link per tool, man pages, bash, zsh and fish
# completions; laid out as the PREFIX it goes into (bin/, share/), with LICENSE, CHANGELOG.md,
# README.md and an install.sh that copies the links as links and has --uninstall.
# Prints the tarball's path, size, unpacked size and sha256, then start-up from it next to jq.
#
#   make dist                  # builds the binary, then runs this:
#   scripts/dist.sh BUILT      # BUILT: the directory holding the spotify-toolkit to ship
#                              # writes dist/spotify-toolkit-VERSION-OS-ARCH.tar.gz (VERSION: the file)
#   DIST_OUT=DIR DIST_TIMING=no scripts/dist.sh BUILT   # elsewhere, without start-up figures
#                              # (PackagingTests packs the debug build and installs from it)
set -euo pipefail
built=${1:?usage: scripts/dist.sh BUILT (make dist passes the release build directory)}
built=$(cd "$built" && pwd)
cd "$(dirname "$0")/.."

version=$(tr -d ' \n' < VERSION)
os=$(uname -s | tr '[:upper:]' '[:lower:]')
arch=$(uname -m)
name="spotify-toolkit-$version-$os-$arch"

stage=$(mktemp -d "${TMPDIR:-/tmp}/dist.XXXXXX")
trap 'rm -rf "$stage"' EXIT
root="$stage/$name"
make -s --no-print-directory install-files BUILT="$built" DESTDIR="$root" PREFIX= >/dev/null
install -m 0644 README.md LICENSE CHANGELOG.md "$root/"
cat > "$root/install.sh" <<'SH'
#!/bin/sh
# Installs spotify-toolkit into PREFIX (default ~/.local): bin/spotify-toolkit with a link per
# tool beside it (copied as links), man pages, and bash, zsh and fish completions.
#
#   ./install.sh                   # into ~/.local
#   PREFIX=/usr/local ./install.sh
#   ./install.sh --uninstall       # removes from PREFIX exactly the files this tarball holds
#
# On Linux the binary carries the Swift runtime; it needs libcurl4 (libcurl.so.4) for the commands
# that reach Spotify.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
prefix=${PREFIX:-$HOME/.local}
cd "$here"
files=$(find bin share ! -type d | sort)
case "${1:-}" in
"") ;;
--uninstall)
    for file in $files; do rm -f "$prefix/$file"; done
    echo "removed spotify-toolkit from $prefix"
    exit 0
    ;;
*)
    echo "usage: [PREFIX=DIR] ./install.sh [--uninstall]   (PREFIX defaults to ~/.local)" >&2
    exit 64
    ;;
esac
for file in $files; do
    mkdir -p "$prefix/$(dirname "$file")"
    # Remove first: a link must replace an earlier install's file, not write through it, and a
    # running binary is not overwritten in place.
    rm -f "$prefix/$file"
    cp -P "$file" "$prefix/$file"
done
echo "installed in $prefix; zsh: add 'fpath=($prefix/share/zsh/site-functions \$fpath)' before compinit in ~/.zshrc"
case ":$PATH:" in *":$prefix/bin:"*) ;; *) echo "note: $prefix/bin is not on PATH" ;; esac
if [ "$(uname -s)" = Linux ]; then
    echo "note: the commands that reach Spotify need libcurl4 (libcurl.so.4)"
fi
SH
chmod 0755 "$root/install.sh"

out=${DIST_OUT:-dist}
mkdir -p "$out"
tarball="$out/$name.tar.gz"
tar -C "$stage" -czf "$tarball" "$name"
size=$(wc -c < "$tarball" | tr -d ' ')
unpacked=$(find "$root" -type f -exec cat {} + | wc -c | tr -d ' ')
sum=$( (sha256sum "$tarball" 2>/dev/null || shasum -a 256 "$tarball") | cut -d' ' -f1)
mib() { awk -v bytes="$1" 'BEGIN { printf "%.1f MiB", bytes / 1048576 }'; }
echo "$tarball: $(mib "$size") ($size bytes), unpacked $(mib "$unpacked"), sha256 $sum"

# Start-up from the tarball's own links, with no Swift toolchain on the library path.
if [ "${DIST_TIMING:-yes}" = no ]; then
    :
elif command -v python3 >/dev/null; then
    env -u LD_LIBRARY_PATH Benchmarks/startup.sh --bin "$root/bin"
else
    echo "dist: no start-up figures (python3 runs the timer)" >&2
fi
