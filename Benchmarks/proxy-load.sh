#!/usr/bin/env bash
# Legacy sends through the HTTPS proxy (CONNECT, TLS with the emulator's CA, HTTP/1.1
# keep-alive inside the tunnel) against the same sends on the plain HTTP port, with the
# same client (curl --parallel, each connection reused), in interleaved rounds on one
# `fcm-device serve` (release build). Also wrk on the direct TLS listener
# (--https-port: the tunnel's TLS and HTTP pipeline without the CONNECT) against wrk
# on the plain port. Usage: Benchmarks/proxy-load.sh [REQUESTS] [CONNECTIONS] [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
requests=${1:-20000}
connections=${2:-32}
seconds=${3:-10}
command -v wrk > /dev/null || { apt-get update -qq && apt-get install -y -qq wrk; }
swift build -c release --product fcm-device 2>&1 | tail -n 1
binary=.build/release/fcm-device
work=$(mktemp -d)
trap 'kill "$server" 2> /dev/null || true; wait "$server" 2> /dev/null || true; rm -rf "$work"' EXIT
"$binary" serve --no-device-limits --ccs-port 0 --ccs-plain-port 0 --http-port 0 --https-port 0 --state "$work/state" > "$work/log" &
server=$!
for _ in $(seq 100); do grep -q onNewToken "$work/log" 2> /dev/null && break; sleep 0.1; done
port=$(head -n 1 "$work/log" | sed 's/.*"http":\([0-9]*\).*/\1/')
tls_port=$(head -n 1 "$work/log" | sed 's/.*"https":\([0-9]*\).*/\1/')
token=$(grep -m 1 onNewToken "$work/log" | sed 's/.*"token":"\([^"]*\)".*/\1/')
ca="$work/state/ccs-ca.pem"
body="{\"to\":\"$token\",\"data\":{\"score\":\"1-0\"}}"

urls() { # $1 url: a curl config of $requests transfers to it
    for _ in $(seq "$requests"); do printf 'url = "%s"\noutput = "/dev/null"\n' "$1"; done > "$work/urls"
}

curl_rate() { # extra curl options...: requests per second, whole; every reply must be 200
    local start end ok
    start=$(date +%s.%N)
    ok=$(curl -s --no-progress-meter --parallel --parallel-max "$connections" "$@" -H 'Authorization: key=demo-server-key' \
        -H 'Content-Type: application/json' -d "$body" -w '%{http_code}\n' -K "$work/urls" | grep -c '^200$' || true)
    end=$(date +%s.%N)
    if [ "$ok" != "$requests" ]; then echo "only $ok of $requests answered 200" >&2; exit 1; fi
    awk -v n="$requests" -v s="$start" -v e="$end" 'BEGIN { printf "%d", n / (e - s) }'
}

wrk_rate() { # $1 url
    {
        echo 'wrk.method = "POST"'
        echo "wrk.body = [[$body]]"
        echo 'wrk.headers["Authorization"] = "key=demo-server-key"'
        echo 'wrk.headers["Content-Type"] = "application/json"'
    } > "$work/post.lua"
    local result
    result=$(wrk -t 1 -c "$connections" -d "${seconds}s" -s "$work/post.lua" "$1")
    if echo "$result" | grep -qE 'Non-2xx|Socket errors'; then echo "errors in the run: $result" >&2; exit 1; fi
    echo "$result" | sed -n 's/^Requests\/sec: *\([0-9]*\).*/\1/p'
}

median() { printf '%s\n' "$@" | sort -n | sed -n "$(( ($# + 1) / 2 ))p"; }

echo "curl --parallel: $requests sends a run, $connections connections; wrk: ${seconds}s, $connections connections; 3 interleaved rounds"
plain=() proxied=() wrk_plain=() wrk_tls=()
for round in 1 2 3; do
    urls "http://127.0.0.1:$port/fcm/send"
    plain+=("$(curl_rate)")
    urls "https://fcm.googleapis.com/fcm/send"
    proxied+=("$(curl_rate --http1.1 -x "http://127.0.0.1:$port" --cacert "$ca")")
    wrk_plain+=("$(wrk_rate "http://127.0.0.1:$port/fcm/send")")
    wrk_tls+=("$(wrk_rate "https://127.0.0.1:$tls_port/fcm/send")")
    echo "round $round: curl plain ${plain[-1]}/s  curl through the proxy ${proxied[-1]}/s  wrk plain ${wrk_plain[-1]}/s  wrk TLS port ${wrk_tls[-1]}/s"
done
p=$(median "${plain[@]}")
x=$(median "${proxied[@]}")
wp=$(median "${wrk_plain[@]}")
wt=$(median "${wrk_tls[@]}")
echo "median: curl plain $p/s, through the proxy $x/s ($(( 100 * x / p ))%); wrk plain $wp/s, TLS port $wt/s ($(( 100 * wt / wp ))%)"
echo "accepted by the device: $(grep -c downstreamAccepted "$work/log") messages"
