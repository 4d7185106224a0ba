#!/usr/bin/env bash
# Checks a promise on Linux: building needs nothing but the Swift toolchain. In a private
# mount namespace, libcurl's development files are hidden (its headers, the unversioned
# libcurl.so, libcurl.a, libcurl.pc and curl-config; libcurl.so.4, what runs, stays), and a fresh
# copy of this checkout (uncommitted changes included, no .build) then must:
#   1. build: `swift build`, and `swift build -c release --static-swift-stdlib` (what make dist ships);
#   2. ship tools that need neither libcurl nor FoundationNetworking to start (readelf -d: no such NEEDED);
#   3. pass the HTTP, transport and tool tests (`--all`: every test);
#   4. with libcurl.so.4 hidden too, still run a local command, and fail a request with exit 69
#      and the message saying what to install.
# Needs root (unshare -m, bind and overlay mounts); changes nothing outside the namespace and the
# scratch copy. About 3 minutes on 2 cores (longer with --all); .ci/run runs it where it is root.
# Run it by hand after touching Sources/CCurl, HTTPClient or Package.swift:
#
#   sudo scripts/check-no-dev.sh            # HTTP, transport and tool suites
#   sudo scripts/check-no-dev.sh --all      # every test
#   sudo scripts/check-no-dev.sh --keep     # keep the scratch copy (its path is printed)
set -euo pipefail

all=0 keep=0
for argument in "$@"; do
    case "$argument" in
        --all) all=1 ;;
        --keep) keep=1 ;;
        *) echo "usage: $0 [--all] [--keep]" >&2; exit 64 ;;
    esac
done

[ "$(uname -s)" = Linux ] || { echo "check-no-dev: Linux only (macOS builds with URLSession)" >&2; exit 69; }
source=$(cd "$(dirname "$0")/.." && pwd)

# Re-run inside a private mount namespace: the mounts below vanish with it, and then the
# directory they were made in is removed.
if [ -z "${CHECK_NO_DEV_MOUNTS:-}" ]; then
    [ "$(id -u)" -eq 0 ] || { echo "check-no-dev: needs root for unshare -m and mount (try sudo)" >&2; exit 77; }
    mounts=$(mktemp -d "${TMPDIR:-/tmp}/check-no-dev-mounts.XXXXXX")
    trap 'rm -rf "$mounts"' EXIT
    status=0
    CHECK_NO_DEV_MOUNTS=$mounts unshare --mount --propagation private "$0" "$@" || status=$?
    exit $status
fi

step() { printf '\ncheck-no-dev: %s\n' "$*" >&2; }
fail() { printf 'check-no-dev: FAILED: %s\n' "$*" >&2; exit 1; }

multiarch=$(gcc -dumpmachine 2>/dev/null || echo "$(uname -m)-linux-gnu")
libdir=/usr/lib/$multiarch
scratch_mounts=$CHECK_NO_DEV_MOUNTS
mkdir "$scratch_mounts/empty" "$scratch_mounts/overlay"

# The library directory gets an overlay, and a file is hidden by removing it there (a whiteout):
# libcurl.so is a symlink to the real libcurl.so.4.x, which a bind mount over it would cover instead.
mount -t tmpfs tmpfs "$scratch_mounts/overlay"
mkdir "$scratch_mounts/overlay/upper" "$scratch_mounts/overlay/work"
mount -t overlay overlay \
    -o "lowerdir=$libdir,upperdir=$scratch_mounts/overlay/upper,workdir=$scratch_mounts/overlay/work" "$libdir"
hide() {
    local path
    for path in "$@"; do
        if [ -d "$path" ] && [ ! -L "$path" ]; then
            mount --bind "$scratch_mounts/empty" "$path"
        elif [ "${path#"$libdir"/}" != "$path" ] && { [ -e "$path" ] || [ -L "$path" ]; }; then
            rm -f "$path"
        elif [ -f "$path" ]; then
            mount --bind /dev/null "$path"
        else
            continue
        fi
        echo "  hidden: $path" >&2
    done
}

step "hiding libcurl's development files (libcurl.so.4 stays)"
hide /usr/include/curl "/usr/include/$multiarch/curl" /usr/local/include/curl \
    "$libdir/libcurl.so" "$libdir/libcurl.a" "$libdir/pkgconfig/libcurl.pc" /usr/bin/curl-config
if printf '#include <curl/curl.h>\n' | cc -E -x c - >/dev/null 2>&1; then fail "<curl/curl.h> is still found"; fi
if pkg-config --exists libcurl 2>/dev/null; then fail "pkg-config still finds libcurl"; fi
[ -e "$libdir/libcurl.so.4" ] || fail "libcurl.so.4 is not installed: install libcurl4 first"

scratch=$(mktemp -d "${TMPDIR:-/tmp}/check-no-dev.XXXXXX")
# SwiftPM also leaves its lock files for the copy's .build in the temporary directory.
locks="${TMPDIR:-/tmp}/$(printf '%s' "$scratch" | tr / _)_.build"
if [ $keep -eq 0 ]; then trap 'rm -rf "$scratch" "$locks".lock "$locks"_workspace-state.json.lock' EXIT; fi
step "a fresh copy of $source in $scratch"
tar -C "$source" --exclude=./.build -cf - . | tar -C "$scratch" -xf -
cd "$scratch"
rm -rf .build

tools=(spotify-auth spotify-playlists spotify-tracks spotify-nowplaying songcount routine-link)
needs_no_http_library() {
    local binary=$1 needed
    needed=$(readelf -d "$binary" | awk '/NEEDED/ { print $5 }' | tr -d '[]' | tr '\n' ' ')
    case "$needed" in
        *libcurl* | *FoundationNetworking*) fail "$binary needs: $needed" ;;
    esac
    echo "  $(basename "$binary"): NEEDED $needed" >&2
}

step "swift build"
swift build
for tool in "${tools[@]}"; do needs_no_http_library ".build/debug/$tool"; done

# Product by product: TestSupport (Tests/TestSupport, for the test targets only) imports Testing,
# which the static Swift runtime does not ship, so `swift build` of every target cannot be static.
step "swift build -c release --static-swift-stdlib, each shipped product"
for product in "${tools[@]}" spotify-toolkit; do swift build -c release --static-swift-stdlib --product "$product"; done
release=$(swift build -c release --static-swift-stdlib --show-bin-path)
for tool in "${tools[@]}"; do needs_no_http_library "$release/$tool"; done

step "tests"
if [ $all -eq 1 ]; then
    swift test
else
    swift test --filter 'CurlLibraryTests|HTTPTransportTests|NetHardeningTests|InFlightLimitTests|ProxyTunnelTests|IdleWaitTests|LibraryLoadingTests|TokenProviderTests|PageReadingTests|PlaylistWriteTests|SpotifyTracksCommandTests|SpotifyPlaylistsCommandTests|SpotifyAuthCommandTests|SpotifyTracksEndToEndTests|SongcountEndToEndTests'
fi

step "with libcurl.so.4 hidden too: a local command runs, a request fails with exit 69"
hide "$libdir/libcurl.so.4" "$(readlink -f "$libdir/libcurl.so.4")"
printf '{"id":"a","name":"A","type":"track","uri":"spotify:track:a","duration_ms":200000}\n' \
    | "$release/songcount" --target 15m >/dev/null 2>&1 || fail "songcount did not run without libcurl.so.4"
status=0
message=$(SPOTIFY_ACCESS_TOKEN=unused SPOTIFY_API_BASE=http://127.0.0.1:9 XDG_CONFIG_HOME="$scratch/config" \
    "$release/spotify-tracks" --no-cache 37i9dQZF1DXcBWIGoYBM5M 2>&1 >/dev/null) || status=$?
echo "  exit $status: $message" >&2
[ $status -eq 69 ] \
    && [ "$message" = "spotify-tracks: libcurl.so.4 not found: install libcurl4 (Debian, Ubuntu) or libcurl (Fedora)" ] \
    || fail "expected exit 69 saying what to install"

step "passed"
if [ $keep -eq 1 ]; then echo "check-no-dev: the copy is kept in $scratch" >&2; fi
exit 0
