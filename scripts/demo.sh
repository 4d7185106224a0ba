#!/usr/bin/env bash
# The whole toolkit end to end, offline: fake-spotify on a free loopback port stands in for
# Spotify, and every tool runs in a throwaway home (XDG_CONFIG_HOME, XDG_DATA_HOME and
# XDG_CACHE_HOME under a temporary directory, tokens in a file there), so your own login,
# routines and cache are never read or touched. Prints each command before its output.
#
#   make demo                      # builds in release mode, then runs this
#   scripts/demo.sh [BIN_DIR]      # with tools already built in BIN_DIR
#   make sandbox                   # scripts/demo.sh --shell: log in, then leave you in a shell
#                                  # with fake-spotify running and every variable set, to try
#                                  # the tools by hand; exiting the shell stops it all
#
# A listening session of 15 minutes takes 10 seconds: fake-spotify's player runs at 90x, and
# SPOTIFY_TOOLKIT_TIME_SCALE=90 (a developer setting, not for real use) makes the watch's clock
# keep pace. The server is stopped however the script ends, Ctrl-C included.
set -euo pipefail
cd "$(dirname "$0")/.."

shell_mode=
if [ "${1:-}" = "--shell" ]; then shell_mode=1; shift; fi
bin=${1:-${SPOTIFY_TOOLKIT_BIN:-}}
if [ -z "$bin" ]; then
    swift build -c release >&2
    bin=$(swift build -c release --show-bin-path)
fi
for tool in fake-spotify spotify-auth spotify-playlists spotify-tracks songcount spotify-nowplaying routine-link; do
    [ -x "$bin/$tool" ] || { echo "demo: $bin/$tool is not built (make release)" >&2; exit 66; }
done
command -v curl >/dev/null || { echo "demo: curl is needed to play the browser (apt-get install curl)" >&2; exit 69; }
speed=${DEMO_SPEED:-90}

home=$(mktemp -d "${TMPDIR:-/tmp}/spotify-toolkit-demo.XXXXXX")
server=
cleanup() {
    if [ -n "$server" ]; then
        kill -TERM "$server" 2>/dev/null || true
        wait "$server" 2>/dev/null || true
    fi
    rm -rf "$home"
}
trap cleanup EXIT
trap 'echo "demo: interrupted" >&2; exit 130' INT
trap 'exit 143' TERM

# Only the demo's own environment: no token, client or API settings of the user's leak in.
unset SPOTIFY_ACCESS_TOKEN SPOTIFY_TOOLKIT_FORCE_TTY SPOTIFY_TOOLKIT_TIME_SCALE
# The sandbox's shell keeps the user's own XDG directories (only the tools get the throwaway
# ones), so they are noted before the tools' are set: name=value, or just name when unset.
xdg_names=(XDG_CONFIG_HOME XDG_DATA_HOME XDG_CACHE_HOME XDG_STATE_HOME)
user_xdg=()
for name in "${xdg_names[@]}"; do
    if [ -n "${!name+set}" ]; then user_xdg+=("$name=${!name}"); else user_xdg+=("$name"); fi
done
export XDG_CONFIG_HOME="$home/config" XDG_DATA_HOME="$home/data" XDG_CACHE_HOME="$home/cache" XDG_STATE_HOME="$home/state"
export SPOTIFY_TOOLKIT_TOKEN_STORE=file
export PATH="$bin:$PATH"

# fake-spotify on a free port (--exit-after is its own safety net should this script be killed -9).
"$bin/fake-spotify" --port 0 --port-file "$home/port" --exit-after "$([ -n "$shell_mode" ] && echo 8h || echo 5m)" >/dev/null &
server=$!
for _ in $(seq 1 250); do  # up to 5 s
    [ -s "$home/port" ] && break
    kill -0 "$server" 2>/dev/null || { echo "demo: fake-spotify did not start" >&2; exit 69; }
    sleep 0.02
done
[ -s "$home/port" ] || { echo "demo: fake-spotify did not report its port" >&2; exit 69; }
fake="http://127.0.0.1:$(cat "$home/port")"
export SPOTIFY_ACCOUNTS_BASE="$fake" SPOTIFY_API_BASE="$fake/v1"
export SPOTIFY_CLIENT_ID=demo-client SPOTIFY_REDIRECT_URI=http://127.0.0.1/callback  # a loopback URI without a port: any free port

# The "browser" for the login: fake-spotify consents at once, and curl follows its redirect back
# to spotify-auth's loopback listener, as your browser would.
cat > "$home/browser-login" <<'SH'
#!/bin/sh
back=$(curl -s --max-time 10 -o /dev/null -w '%{redirect_url}' "$1")
exec curl -s --max-time 10 -o /dev/null "$back"
SH
# The "browser" for routine-link: writes down what it was asked to open, opens nothing.
cat > "$home/browser-record" <<SH
#!/bin/sh
printf '%s\n' "\$1" >> "$home/opened"
SH
# The sandbox's BROWSER: a login page is answered as above, so the tools' own advice
# (spotify-auth login --scope edit) works there; anything else (routine-link open, start) is
# only written down.
cat > "$home/browser" <<SH
#!/bin/sh
case "\$1" in
"$fake"/authorize*) exec "$home/browser-login" "\$1" ;;
*) exec "$home/browser-record" "\$1" ;;
esac
SH
chmod +x "$home/browser-login" "$home/browser-record" "$home/browser"

if [ -t 1 ] && [ -z "${NO_COLOR:-}" ]; then bold=$'\e[1m' dim=$'\e[2m' off=$'\e[0m'; else bold= dim= off=; fi
say() { printf '\n%s# %s%s\n' "$dim" "$*" "$off"; }
# Prints the command, then runs it in this shell.
run() { printf '%s$ %s%s\n' "$bold" "$1" "$off"; eval "$1"; }

started=$SECONDS
say "fake-spotify listens on $fake; a throwaway home in $home"
say "Log in (OAuth PKCE; BROWSER is a script that follows Spotify's redirect)"
if [ -n "$shell_mode" ]; then
    # A fake grants anything, so the sandbox can try every command: writes and playback too.
    run 'BROWSER=$home/browser-login spotify-auth login --scope all < /dev/null'
else
    run 'BROWSER=$home/browser-login spotify-auth login < /dev/null'  # type-ahead is for the shell, not a pasted URL
fi

if [ -n "$shell_mode" ]; then
    # The sandbox: a shell with everything set; leaving it stops fake-spotify and removes the home.
    # The shell itself keeps your HOME and XDG directories, so its own programs (fish writes its
    # completions and history there) never write into the throwaway home; the tools get the
    # throwaway XDG directories from a wrapper of their own name in $home/bin, first on PATH,
    # which also reads the speed sandbox-speed set. Your shell's start-up files run after this
    # script, and one that changes PATH or a SPOTIFY_ variable would undo the sandbox:
    # so its settings are set again after them (bash: its own rcfile; zsh: its own ZDOTDIR; fish:
    # -C), and SPOTIFY_TOOLKIT_SANDBOX makes every tool refuse a directory outside the home.
    mkdir -p "$home/bin"
    for tool in spotify-auth spotify-playlists spotify-tracks songcount spotify-nowplaying routine-link; do
        {
            printf '#!/bin/sh\n'
            for name in "${xdg_names[@]}"; do printf 'export %s=%q\n' "$name" "${!name}"; done
            printf '[ -n "${SPOTIFY_TOOLKIT_TIME_SCALE:-}" ] || [ ! -s %q ] || ' "$home/speed"
            printf 'export SPOTIFY_TOOLKIT_TIME_SCALE="$(cat %q)"\n' "$home/speed"
            printf 'exec %q "$@"\n' "$bin/$tool"
        } > "$home/bin/$tool"
    done
    # sandbox-speed N: fake-spotify's player N times faster (the session kept), and the tools'
    # clock with it (SPOTIFY_TOOLKIT_TIME_SCALE, a developer setting), so a watch keeps pace.
    cat > "$home/bin/sandbox-speed" <<SH
#!/bin/sh
case "\$1" in
''|*[!0-9.]*) echo "usage: sandbox-speed N (1 is real time; 90 plays 15 minutes in 10 s)" >&2; exit 64 ;;
esac
curl -sf --max-time 10 -o /dev/null -d speed="\$1" "$fake/_fake/playback/speed" || { echo "sandbox-speed: fake-spotify refused speed \$1" >&2; exit 69; }
if [ "\$1" = 1 ]; then rm -f "$home/speed"; else printf '%s\n' "\$1" > "$home/speed"; fi
echo "sandbox-speed: the player and the tools' clock now run \$1 times as fast" >&2
SH
    chmod +x "$home/bin/"*
    export PATH="$home/bin:$PATH"
    export BROWSER="$home/browser" SANDBOX_HOME="$home" SPOTIFY_TOOLKIT_SANDBOX="$home"
    settings=(SPOTIFY_TOOLKIT_TOKEN_STORE SPOTIFY_ACCOUNTS_BASE SPOTIFY_API_BASE SPOTIFY_CLIENT_ID
        SPOTIFY_REDIRECT_URI BROWSER SANDBOX_HOME SPOTIFY_TOOLKIT_SANDBOX PATH)
    : > "$home/sandbox.sh"
    : > "$home/sandbox.fish"
    for name in "${settings[@]}"; do
        printf 'export %s=%q\n' "$name" "${!name}" >> "$home/sandbox.sh"
        printf 'set -gx %s %s\n' "$name" "'${!name//\'/\\\'}'" >> "$home/sandbox.fish"
    done
    printf 'unset SPOTIFY_ACCESS_TOKEN\n' >> "$home/sandbox.sh"
    printf 'set -e SPOTIFY_ACCESS_TOKEN\n' >> "$home/sandbox.fish"
    # The prompt says where you are, ahead of your own prompt, even one redrawn before each
    # command (PROMPT_COMMAND, precmd, a fish_prompt of your own).
    cat > "$home/bashrc" <<SH
[ -f "\$HOME/.bashrc" ] && . "\$HOME/.bashrc"
. "$home/sandbox.sh"
__spotify_sandbox_prompt() { case "\$PS1" in "(spotify sandbox) "*) ;; *) PS1="(spotify sandbox) \$PS1" ;; esac; }
# Joined by a newline, which may follow anything a PROMPT_COMMAND ends with (pyenv's ends in ';',
# and ';;' is a syntax error that stops your hook).
PROMPT_COMMAND="\${PROMPT_COMMAND:+\$PROMPT_COMMAND
}__spotify_sandbox_prompt"
__spotify_sandbox_prompt
SH
    # zsh reads its start-up files from ZDOTDIR: the sandbox's, which read yours (from your
    # ZDOTDIR, else HOME, or where your .zshenv moves it) with ZDOTDIR set back to yours while
    # they run, then the sandbox's settings; after the last one, your ZDOTDIR stays.
    mkdir -p "$home/zdotdir"
    printf '__spotify_sandbox_zdotdir=%q\n' "${ZDOTDIR:-$HOME}" > "$home/zdotdir/.zshenv"
    for file in .zshenv .zprofile .zshrc .zlogin; do
        {
            printf 'ZDOTDIR=$__spotify_sandbox_zdotdir\n[ -f "$ZDOTDIR/%s" ] && . "$ZDOTDIR/%s"\n' "$file" "$file"
            printf '__spotify_sandbox_zdotdir=$ZDOTDIR\n. %q\n' "$home/sandbox.sh"
            # zsh goes on to the sandbox's next file: .zprofile and .zshrc (.zlogin in a login shell).
            [ "$file" = .zlogin ] || [ "$file" = .zshrc ] || printf 'ZDOTDIR=%q\n' "$home/zdotdir"
        } >> "$home/zdotdir/$file"
    done
    cat >> "$home/zdotdir/.zshrc" <<'SH'
__spotify_sandbox_prompt() { [[ $PS1 == "(spotify sandbox) "* ]] || PS1="(spotify sandbox) $PS1"; }
typeset -ga precmd_functions
precmd_functions+=(__spotify_sandbox_prompt)
SH
    # A login shell (zsh -l) reads .zlogin after .zshrc: ZDOTDIR must still be the sandbox's then.
    printf '[[ -o login ]] && ZDOTDIR=%q\n' "$home/zdotdir" >> "$home/zdotdir/.zshrc"
    cat >> "$home/sandbox.fish" <<'FISH'
functions -q fish_prompt; and not functions -q __spotify_sandbox_user_prompt; and functions -c fish_prompt __spotify_sandbox_user_prompt
function fish_prompt
    printf '(spotify sandbox) '
    functions -q __spotify_sandbox_user_prompt; and __spotify_sandbox_user_prompt
end
FISH
    say "A shell with fake-spotify at $fake, logged in with every scope (it is a fake). Try: spotify-playlists; spotify-tracks Morning | songcount --target 15m; spotify-nowplaying play Morning, then spotify-nowplaying --watch | songcount. The player plays in real time: sandbox-speed 90 makes it and the tools' clock 90 times as fast (sandbox-speed 1 for real time). exit (or Ctrl-D) ends it."
    trap - INT
    # The shell gets your own XDG directories back (the tools keep theirs through the wrappers).
    for entry in "${user_xdg[@]}"; do
        case "$entry" in *=*) export "$entry" ;; *) unset "$entry" ;; esac
    done
    # Started by make sandbox, the shell is not inside make: a make typed there says no "Entering directory".
    unset MAKELEVEL MAKEFLAGS MFLAGS
    if [ -n "${SANDBOX_COMMAND:-}" ]; then
        bash -c "$SANDBOX_COMMAND"  # for tests and scripts: one command instead of a prompt
    else
        # Typed into (standard input not a terminal: a test, a script), the shell gets no
        # controlling terminal: started outside the terminal's foreground process group (as a test
        # runner starts it), bash -i would stop its group with SIGTTIN and zsh -i would take the
        # terminal from whoever has it.
        detach=()
        if [ ! -t 0 ] && command -v setsid >/dev/null; then detach=(setsid -w); fi
        case "$(basename "${SHELL:-bash}")" in
        zsh) ZDOTDIR="$home/zdotdir" ${detach[@]+"${detach[@]}"} zsh -i || true ;;
        fish) ${detach[@]+"${detach[@]}"} fish -i -C "source '$home/sandbox.fish'" || true ;;
        *) ${detach[@]+"${detach[@]}"} bash --rcfile "$home/bashrc" -i || true ;;
        esac
    fi
    exit 0
fi

say "Your playlists"
run 'spotify-playlists'

say "How many songs of the Morning playlist fill 15 minutes"
if command -v jq >/dev/null; then
    run "spotify-playlists | jq -c 'select(.name==\"Morning\")' | spotify-tracks | songcount --target 15m"
else
    run 'spotify-tracks spotify:playlist:3cEYpjA9oz9GiPac4AsH4n | songcount --target 15m'
fi

say "A routine, its playlist, and a session started (BROWSER records the link instead of opening it)"
run 'routine-link add morning --duration 15m --note "stretch, then coffee"'
run 'spotify-playlists get spotify:playlist:3cEYpjA9oz9GiPac4AsH4n | routine-link link morning'
run 'BROWSER=$home/browser-record routine-link start morning'
run 'cat "$home/opened"'

say "Fifteen minutes of listening in $((900 / speed)) seconds: fake-spotify plays at ${speed}x"
curl -s --max-time 10 -o /dev/null -d speed="$speed" "$fake/_fake/playback"
run "SPOTIFY_TOOLKIT_TIME_SCALE=$speed spotify-nowplaying --watch --for 15m | songcount | routine-link log morning"

say "The session history"
run 'routine-link history'

say "Done in $((SECONDS - started)) s; fake-spotify stopped, the throwaway home removed."
