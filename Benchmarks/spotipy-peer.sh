# Sourced by the benchmarks that race spotipy: the setup they share. Call
#   spotipy_peer_setup NAME PRODUCT... -- FAKE_SPOTIFY_ARGUMENTS...
# It makes $work (removed on exit, with fake-spotify stopped), builds the release PRODUCTs and
# fake-spotify ($bin), installs spotipy into a throwaway venv ($spotipy_version), starts
# fake-spotify on 127.0.0.1 with the arguments ($base), and mints a token for both ($token).

spotipy_peer_cleanup() {
    [ -n "${fake_pid:-}" ] && kill "$fake_pid" 2>/dev/null && wait "$fake_pid" 2>/dev/null || true
    rm -rf "$work"
}

spotipy_peer_setup() {
    local name=$1 products=() product
    shift
    while [ $# -gt 0 ] && [ "$1" != "--" ]; do products+=("$1"); shift; done
    [ $# -gt 0 ] && shift

    command -v python3 >/dev/null || { echo "bench: python3 is needed for spotipy" >&2; exit 69; }
    command -v curl >/dev/null || { echo "bench: curl is needed to talk to fake-spotify's controls" >&2; exit 69; }

    work=$(mktemp -d "${TMPDIR:-/tmp}/$name.XXXXXX")
    # What the tools keep (version history, journals, logs) stays in here, never in the user's own.
    export XDG_DATA_HOME="$work/data" XDG_STATE_HOME="$work/state"
    fake_pid=
    trap spotipy_peer_cleanup EXIT

    echo "bench: building release binaries ..." >&2
    for product in "${products[@]}" fake-spotify; do swift build -c release --product "$product" >/dev/null; done
    bin=$(swift build -c release --show-bin-path)

    echo "bench: installing spotipy from PyPI into $work/venv ..." >&2
    python3 -m venv "$work/venv"
    "$work/venv/bin/pip" install --quiet --disable-pip-version-check spotipy
    spotipy_version=$("$work/venv/bin/python" -c 'import importlib.metadata as m; print(m.version("spotipy"))')

    "$bin/fake-spotify" --port-file "$work/port" --exit-after 1h "$@" > /dev/null 2> "$work/fake.err" &
    fake_pid=$!
    for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.05; done
    [ -s "$work/port" ] || { echo "bench: fake-spotify did not start: $(cat "$work/fake.err")" >&2; exit 69; }
    base="http://127.0.0.1:$(cat "$work/port")"
    token=$(curl -s -X POST -d expires_in=36000 "$base/_fake/tokens" |
        python3 -c 'import json, sys; print(json.load(sys.stdin)["access_token"])')
}
