#!/usr/bin/env bash
# HTTP send API throughput on loopback with wrk: a trivial Hummingbird route
# (GET /healthz) as the baseline, then legacy /fcm/send and v1 messages:send, all
# against one `fcm-device serve` (release build), in the same run.
# Usage: Benchmarks/http-load.sh [SECONDS] [CONNECTIONS] [THREADS]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-10}
connections=${2:-64}
threads=${3:-2}
command -v wrk > /dev/null || { apt-get update -qq && apt-get install -y -qq wrk; }
swift build -c release --product fcm-device 2>&1 | tail -n 1
binary=.build/release/fcm-device
work=$(mktemp -d)
trap 'kill "$server" 2> /dev/null || true; wait "$server" 2> /dev/null || true; rm -rf "$work"' EXIT
"$binary" serve --ccs-port 0 --ccs-plain-port 0 --http-port 0 --state "$work/state" > "$work/log" &
server=$!
for _ in $(seq 100); do grep -q onNewToken "$work/log" 2> /dev/null && break; sleep 0.1; done
port=$(head -n 1 "$work/log" | sed 's/.*"http":\([0-9]*\).*/\1/')
token=$(grep -m 1 onNewToken "$work/log" | sed 's/.*"token":"\([^"]*\)".*/\1/')
assertion=$("$binary" credentials --state "$work/state" --assertion)
bearer=$(curl -s "http://127.0.0.1:$port/token" -d grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer \
    -d "assertion=$assertion" | sed 's/.*"access_token":"\([^"]*\)".*/\1/')

post_script() { # $1 body, then header lines
    local body=$1
    shift
    {
        echo 'wrk.method = "POST"'
        echo "wrk.body = [[$body]]"
        for header in "$@"; do echo "wrk.headers[\"${header%%:*}\"] = \"${header#*: }\""; done
    } > "$work/post.lua"
    echo "$work/post.lua"
}

run() { # $1 name, $2 url, $3 optional script
    local result
    if [ -n "${3:-}" ]; then
        result=$(wrk -t "$threads" -c "$connections" -d "${seconds}s" -s "$3" "$2")
    else
        result=$(wrk -t "$threads" -c "$connections" -d "${seconds}s" "$2")
    fi
    printf '%-32s %s   %s\n' "$1" "$(echo "$result" | grep Requests/sec)" \
        "$(echo "$result" | grep -E 'Non-2xx|Socket errors' | tr '\n' ' ')"
}

echo "wrk: ${seconds}s, $connections connections, $threads threads; serve (release) on port $port"
run "GET /healthz (baseline)" "http://127.0.0.1:$port/healthz"
run "POST /fcm/send (legacy)" "http://127.0.0.1:$port/fcm/send" \
    "$(post_script "{\"to\":\"$token\",\"data\":{\"score\":\"1-0\"}}" \
        "Authorization: key=demo-server-key" "Content-Type: application/json")"
run "POST v1 messages:send" "http://127.0.0.1:$port/v1/projects/demo-project/messages:send" \
    "$(post_script "{\"message\":{\"token\":\"$token\",\"data\":{\"score\":\"1-0\"}}}" \
        "Authorization: Bearer $bearer" "Content-Type: application/json")"
echo "accepted by the device: $(grep -c downstreamAccepted "$work/log") messages"
ps -o rss= -p "$server" | awk '{printf "serve resident memory at the end: %.0f MiB\n", $1 / 1024}'
