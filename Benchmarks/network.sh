#!/usr/bin/env bash
# The tools the way users meet Spotify: over TLS 1.3 and HTTP/2, through a front (nginx
# on 127.0.0.1, gzip for JSON as a CDN in front of an API does) to fake-spotify with its
# per-request latency, a CA made here with openssl and trusted through SSL_CERT_FILE (spotipy:
# REQUESTS_CA_BUNDLE). In the same run, interleaved:
#
#   library    spotify-playlists | spotify-tracks --no-cache     on --library-shape real
#   spotipy    current_user_playlists by offset, then playlist_items + next for each
#   pl10000    spotify-tracks --no-cache on the 10,000-item playlist
#   spotipy    playlist_items + next on it
#
# For each: the median time, requests, TLS connections and resumed sessions, the protocol, and
# the bytes received, all from nginx's access log; the bytes the same answers would have been
# without compression (nginx's $gzip_ratio); and the floor: round trips at the per-request latency
# (on loopback a TCP + TLS 1.3 handshake costs no latency; on a real path add 2 round trips per
# process). Every run's item ids must match spotipy's, in order, or the run fails.
#
#   Benchmarks/network.sh                               # 3 runs each, 40 ms per request
#   BENCH_RUNS=5 BENCH_LATENCY_MS=50 Benchmarks/network.sh
#
# Needs nginx, openssl, python3 and curl. Everything listens on 127.0.0.1 and is stopped (by pid)
# and removed at the end; nothing talks to Spotify.
set -euo pipefail
cd "$(dirname "$0")/.."
. Benchmarks/measure.sh  # now, median

runs=${BENCH_RUNS:-3}
latency=${BENCH_LATENCY_MS:-40}
in_flight_limit=8
nginx=$(command -v nginx || echo /usr/sbin/nginx)
[ -x "$nginx" ] || { echo "bench: nginx is needed (apt-get install nginx)" >&2; exit 69; }
command -v openssl >/dev/null || { echo "bench: openssl is needed" >&2; exit 69; }

. Benchmarks/spotipy-peer.sh
spotipy_peer_setup network spotify-playlists spotify-tracks -- --library-shape real --latency-ms "$latency"
nginx_pid=
network_cleanup() {
    [ -n "$nginx_pid" ] && kill "$nginx_pid" 2>/dev/null && wait "$nginx_pid" 2>/dev/null || true
    spotipy_peer_cleanup
}
trap network_cleanup EXIT
fake_port=${base##*:}

# The CA, and a certificate for 127.0.0.1 it signs.
ec=(-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes)
openssl req -x509 "${ec[@]}" -keyout "$work/ca.key" -out "$work/ca.pem" -days 2 -subj "/CN=bench CA" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null
openssl req "${ec[@]}" -keyout "$work/server.key" -out "$work/server.csr" -subj "/CN=localhost" 2>/dev/null
printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\n' > "$work/server.ext"
openssl x509 -req -in "$work/server.csr" -CA "$work/ca.pem" -CAkey "$work/ca.key" -CAcreateserial \
    -out "$work/server.pem" -days 2 -extfile "$work/server.ext" 2>/dev/null

front_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
mkdir -p "$work/logs" "$work/tmp"
user=; [ "$(id -u)" -eq 0 ] && user="user root root;"
cat > "$work/nginx.conf" <<EOF
$user
worker_processes 1;
daemon off;
pid $work/nginx.pid;
error_log $work/logs/error.log info;
events { worker_connections 512; }
http {
  log_format front '\$connection\t\$server_protocol\t\$ssl_session_reused\t\$status\t\$request_uri\t\$body_bytes_sent\t\$gzip_ratio\t\$bytes_sent';
  access_log $work/logs/access.log front;
  client_body_temp_path $work/tmp/body;
  proxy_temp_path $work/tmp/proxy;
  fastcgi_temp_path $work/tmp/fastcgi;
  uwsgi_temp_path $work/tmp/uwsgi;
  scgi_temp_path $work/tmp/scgi;
  upstream fake { server 127.0.0.1:$fake_port; keepalive 16; }
  gzip on; gzip_types application/json; gzip_proxied any; gzip_comp_level 1;
  ssl_certificate $work/server.pem;
  ssl_certificate_key $work/server.key;
  ssl_protocols TLSv1.3;
  server {
    listen 127.0.0.1:$front_port ssl http2;
    location / {
      proxy_pass http://fake;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Accept-Encoding "";
      # fake-spotify's next links name the Host it was asked for; spotipy follows them over https.
      proxy_set_header Host \$host:\$server_port;
      sub_filter_types application/json;
      sub_filter_once off;
      sub_filter 'http://\$host:\$server_port/' 'https://\$host:\$server_port/';
    }
  }
}
EOF
"$nginx" -p "$work" -c "$work/nginx.conf" -e "$work/logs/error.log" &
nginx_pid=$!
for _ in $(seq 100); do curl -s -o /dev/null --cacert "$work/ca.pem" "https://127.0.0.1:$front_port/" && break; sleep 0.05; done
front="https://127.0.0.1:$front_port"

# spotipy as its documentation pages: Benchmarks/spotipy_library.py.

pl10000=gen0000000000000010000
tools() {
    env -u CURL_CA_BUNDLE -u SSL_CERT_DIR SSL_CERT_FILE="$work/ca.pem" SPOTIFY_API_BASE="$front/v1" \
        SPOTIFY_ACCOUNTS_BASE="$front" SPOTIFY_ACCESS_TOKEN="$token" XDG_CONFIG_HOME="$work/config" \
        XDG_CACHE_HOME="$work/cache" "$@"
}
ids_of() { python3 -c 'import json, sys; [print(r["id"] or r["uri"]) for r in map(json.loads, sys.stdin)]'; }

# "requests connections resumed bytes uncompressed protocols" of the access log's lines since line $1.
log_figures() {
    tail -n +"$(($1 + 1))" "$work/logs/access.log" | python3 -c '
import sys
requests = conns = 0; seen = {}; sent = plain = 0; protos = set()
for line in sys.stdin:
    f = line.rstrip("\n").split("\t")
    if len(f) != 8 or not f[4].startswith("/v1/"): continue
    requests += 1; seen.setdefault(f[0], f[2] == "r"); protos.add(f[1])
    body = int(f[5]); ratio = float(f[6]) if f[6] != "-" else 1.0
    sent += int(f[7]); plain += int(f[7]) - body + body * ratio
print(requests, len(seen), sum(seen.values()), sent, int(plain), ",".join(sorted(protos)))'
}

run_case() {
    local name=$1 start seconds lines
    lines=$(wc -l < "$work/logs/access.log")
    start=$(now)
    case $name in
        library) tools "$bin/spotify-playlists" | tools "$bin/spotify-tracks" --no-cache | ids_of > "$work/$name.ids" || true ;;
        library-spotipy) REQUESTS_CA_BUNDLE="$work/ca.pem" "$work/venv/bin/python" Benchmarks/spotipy_library.py "$front" "$token" library > "$work/$name.ids" ;;
        pl10000) tools "$bin/spotify-tracks" --no-cache "$pl10000" | ids_of > "$work/$name.ids" ;;
        pl10000-spotipy) REQUESTS_CA_BUNDLE="$work/ca.pem" "$work/venv/bin/python" Benchmarks/spotipy_library.py "$front" "$token" "$pl10000" > "$work/$name.ids" ;;
    esac
    seconds=$(awk -v a="$start" -v b="$(now)" 'BEGIN { printf "%.3f", b - a }')
    sleep 0.2  # nginx logs a request as it ends
    echo "$seconds $(log_figures "$lines")" >> "$work/$name.figures"
    echo "run $i: $name ${seconds}s ($(tail -1 "$work/$name.figures" | cut -d' ' -f2-))" >&2
}

cases="library library-spotipy pl10000 pl10000-spotipy"
for name in $cases; do : > "$work/$name.figures"; done
for ((i = 1; i <= runs; i++)); do
    order=$cases; [ $((i % 2)) -eq 0 ] && order=$(echo $cases | tr ' ' '\n' | tac | tr '\n' ' ')
    for name in $order; do run_case "$name"; done
    for pair in library pl10000; do
        cmp -s "$work/$pair.ids" "$work/$pair-spotipy.ids" \
            || { echo "bench: $pair and spotipy printed different ids" >&2; exit 70; }
        [ -s "$work/$pair.ids" ] || { echo "bench: $pair printed nothing" >&2; exit 70; }
    done
done

# Floors: round trips one after another at the per-request latency, 8 in flight.
read -r list_pages pages < <(tools "$bin/spotify-playlists" | python3 -c '
import json, sys
totals = [json.loads(l)["items_total"] for l in sys.stdin]
print((len(totals) + 49) // 50, sum((t + 49) // 50 for t in totals))')
library_rounds=$((1 + (list_pages - 1 + in_flight_limit - 1) / in_flight_limit + (pages + in_flight_limit - 1) / in_flight_limit))
pl_rounds=$((1 + (199 + in_flight_limit - 1) / in_flight_limit))
floor_of() { awk -v r="$1" -v l="$latency" 'BEGIN { printf "%.3f", r * l / 1000 }'; }
library_floor=$(floor_of $library_rounds)
pl_floor=$(floor_of $pl_rounds)
median_of() { awk -v c="$2" '{ print $c }' "$work/$1.figures" | median; }

echo "network: TLS 1.3 front (nginx $("$nginx" -v 2>&1 | sed 's|.*/||'), gzip level 1) -> fake-spotify --library-shape real, ${latency} ms per request, $runs runs each; every run's ids equal spotipy's"
echo "floors (on loopback a TCP + TLS 1.3 handshake costs no latency; on a real path add 2 round trips per process):"
echo "  library: 1 + ceil(($list_pages - 1) / 8) + ceil($pages / 8) = $library_rounds round trips x ${latency} ms = ${library_floor}s"
echo "  pl10000: 1 + ceil(199 / 8) = $pl_rounds round trips x ${latency} ms = ${pl_floor}s"
printf '%-16s %9s %9s %9s %11s %8s %11s %15s %9s %10s\n' case median requests TLS-conns resumed protocol bytes-recv uncompressed-eq time/floor vs-spotipy
for name in $cases; do
    t=$(median_of "$name" 1)
    case $name in library*) floor=$library_floor; peer=library-spotipy ;; *) floor=$pl_floor; peer=pl10000-spotipy ;; esac
    s=$(median_of "$peer" 1)
    printf '%-16s %8ss %9s %9s %11s %8s %11s %15s %9sx %9sx\n' "$name" "$t" "$(median_of "$name" 2)" \
        "$(median_of "$name" 3)" "$(median_of "$name" 4)" "$(tail -1 "$work/$name.figures" | awk '{ print $7 }')" \
        "$(median_of "$name" 5)" "$(median_of "$name" 6)" \
        "$(awk -v a="$t" -v b="$floor" 'BEGIN { printf "%.2f", a / b }')" \
        "$(awk -v a="$s" -v b="$t" 'BEGIN { printf "%.2f", a / b }')"
done

# ---- With a rate-limit front ---------------------------------------------------------------
# The library read again, through the same TLS front, with fake-spotify's rolling window on
# (BENCH_RATE_WINDOW, default 180 requests / 30 s, 429 with Retry-After), once
# each (BENCH_RATE_RUNS): time, requests, refused requests, and the floor the limit itself sets
# for the R requests admitted: (ceil(R/N) - 1) x window + the last window's requests, 8 at a time
# for the toolkit, one at a time for spotipy. Benchmarks/rate-limit.sh is the same over plain HTTP.
rate_window=${BENCH_RATE_WINDOW:-180/30s}
rate_runs=${BENCH_RATE_RUNS:-1}
rate_n=${rate_window%%/*}
rate_s=$(python3 -c '
import re, sys
m = re.fullmatch(r"([0-9.]+)(ms|s|m)", sys.argv[1])
print(float(m[1]) * {"ms": 0.001, "s": 1, "m": 60}[m[2]])' "${rate_window#*/}")
refused_count() { curl -s "$base/_fake/counters" | python3 -c 'import json, sys; print(json.load(sys.stdin)["rate_limited"])'; }
rate_floor() {
    awk -v r="$1" -v n="$rate_n" -v w="$rate_s" -v c="$2" -v l="$latency" 'BEGIN {
        full = int((r + n - 1) / n) - 1; rest = r - full * n
        printf "%.3f", full * w + int((rest + c - 1) / c) * l / 1000 }'
}
for name in library library-spotipy; do : > "$work/$name-limited.figures"; done
for ((i = 1; i <= rate_runs; i++)); do
    for name in library library-spotipy; do
        # Setting the window starts it empty; the counters say how many it refused.
        curl -s -X POST -d "rate_window=$rate_window" "$base/_fake/library" > /dev/null
        curl -s -X POST "$base/_fake/reset-counters" > /dev/null
        run_case "$name"
        # Its figures go to the limited rows only: the unlimited medians above stay as they were.
        echo "$(tail -1 "$work/$name.figures") $(refused_count)" >> "$work/$name-limited.figures"
        sed -i '$ d' "$work/$name.figures"
        cmp -s "$work/$name.ids" "$work/library.ids" || [ "$name" = library ] \
            || { echo "bench: under the rate limit, spotipy printed other ids than the toolkit" >&2; exit 70; }
    done
done
curl -s -X POST -d "rate_window=off" "$base/_fake/library" > /dev/null
echo "with a rate-limit front: rolling window $rate_window (N = $rate_n per ${rate_s} s), $rate_runs run(s) each, same TLS front"
printf '%-16s %9s %9s %8s %9s %10s\n' case time requests refused floor time/floor
for name in library library-spotipy; do
    t=$(median_of "$name-limited" 1); requests=$(median_of "$name-limited" 2); refused=$(median_of "$name-limited" 8)
    concurrent=$([ "$name" = library ] && echo "$in_flight_limit" || echo 1)
    f=$(rate_floor $((requests - refused)) "$concurrent")
    printf '%-16s %8ss %9s %8s %8ss %9sx\n' "$name" "$t" "$requests" "$refused" "$f" \
        "$(awk -v a="$t" -v b="$f" 'BEGIN { printf "%.2f", a / b }')"
done
limited_refused=$(median_of library-limited 8)

nc=$(median_of library 1); sp=$(median_of library-spotipy 1)
conns=$(median_of library 3); sent=$(median_of library 5); plain=$(median_of library 6)
verdict() { if awk "BEGIN { exit !($1) }"; then echo met; else echo "NOT met"; fi; }
echo "issue 27's targets (library, medians):"
echo "  within 1.25x of its floor: $(awk -v a="$nc" -v b="$library_floor" 'BEGIN { printf "%.2f", a / b }')x, $(verdict "$nc / $library_floor <= 1.25")"
echo "  at least 7x spotipy: $(awk -v a="$sp" -v b="$nc" 'BEGIN { printf "%.2f", a / b }')x, $(verdict "$sp / $nc >= 7")"
echo "  1 TLS handshake per process (2 processes): $conns connections, $(verdict "$conns <= 2")"
echo "  at least 5x fewer bytes than uncompressed: $(awk -v a="$plain" -v b="$sent" 'BEGIN { printf "%.1f", a / b }')x, $(verdict "$plain / $sent >= 5")"
echo "  at most 20 refused requests under the rolling window: $limited_refused, $(verdict "$limited_refused <= 20")"
