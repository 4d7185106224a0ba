#!/usr/bin/env bash
# A release tarball: the six tools built with --static-swift-stdlib (no Swift runtime needed on
# the target machine), their man pages and bash, zsh and fish completions, and an install.sh.
# Prints the tarball's path, size and sha256, and the tools' start-up time from it.
#
#   make dist        # dist/spotify-toolkit-VERSION-OS-ARCH.tar.gz
set -euo pipefail
cd "$(dirname "$0")/.."

tools=(spotify-auth spotify-playlists spotify-tracks spotify-nowplaying songcount routine-link)
version=$(git describe --tags --always 2>/dev/null || echo dev)
os=$(uname -s | tr '[:upper:]' '[:lower:]')
arch=$(uname -m)
name="spotify-toolkit-$version-$os-$arch"

flags=(-c release)
[ "$os" = linux ] && flags+=(--static-swift-stdlib)
for tool in "${tools[@]}"; do swift build "${flags[@]}" --product "$tool" >&2; done
built=$(swift build "${flags[@]}" --show-bin-path)

stage=$(mktemp -d "${TMPDIR:-/tmp}/dist.XXXXXX")
trap 'rm -rf "$stage"' EXIT
root="$stage/$name"
mkdir -p "$root/bin" "$root/man/man1" "$root/completions/bash" "$root/completions/zsh" "$root/completions/fish"
for tool in "${tools[@]}"; do
    install -m 0755 "$built/$tool" "$root/bin/$tool"
    strip "$root/bin/$tool" 2>/dev/null || true
    install -m 0644 "man/man1/$tool.1" "$root/man/man1/"
    install -m 0644 "completions/bash/$tool" "$root/completions/bash/"
    install -m 0644 "completions/zsh/_$tool" "$root/completions/zsh/"
    install -m 0644 "completions/fish/$tool.fish" "$root/completions/fish/"
done
install -m 0644 README.md "$root/"
cat > "$root/install.sh" <<'SH'
#!/bin/sh
# Installs into PREFIX (default ~/.local): bin, share/man/man1 and the shells' completion directories.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
prefix=${PREFIX:-$HOME/.local}
mkdir -p "$prefix/bin" "$prefix/share/man/man1" "$prefix/share/bash-completion/completions" \
    "$prefix/share/zsh/site-functions" "$prefix/share/fish/vendor_completions.d"
cp "$here"/bin/* "$prefix/bin/"
cp "$here"/man/man1/* "$prefix/share/man/man1/"
cp "$here"/completions/bash/* "$prefix/share/bash-completion/completions/"
cp "$here"/completions/zsh/* "$prefix/share/zsh/site-functions/"
cp "$here"/completions/fish/* "$prefix/share/fish/vendor_completions.d/"
echo "installed in $prefix; zsh: add 'fpath=($prefix/share/zsh/site-functions \$fpath)' before compinit in ~/.zshrc"
SH
chmod 0755 "$root/install.sh"

mkdir -p dist
tar -C "$stage" -czf "dist/$name.tar.gz" "$name"
size=$(wc -c < "dist/$name.tar.gz")
sum=$(sha256sum "dist/$name.tar.gz" 2>/dev/null | cut -d' ' -f1 || shasum -a 256 "dist/$name.tar.gz" | cut -d' ' -f1)
echo "dist/$name.tar.gz: $((size / 1024)) KiB, sha256 $sum"
# Start-up from the tarball's binaries, no Swift runtime on the library path: median of 11.
times=()
for _ in $(seq 11); do
    start=$(date +%s%N)
    env -u LD_LIBRARY_PATH "$root/bin/songcount" --version > /dev/null
    times+=($(( ($(date +%s%N) - start) / 1000 )))
done
median=$(printf '%s\n' "${times[@]}" | sort -n | sed -n 6p)
echo "start-up (songcount --version from the tarball): median ${median} µs of 11 runs"
