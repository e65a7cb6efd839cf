#!/usr/bin/env bash
# HTTP send API throughput on loopback with wrk: a trivial Hummingbird route
# (GET /healthz) as the baseline, then legacy /fcm/send and v1 messages:send, all
# against one `fcm-device serve` (release build), in the same run.
# Usage: Benchmarks/http-load.sh [SECONDS] [CONNECTIONS] [THREADS]
# FCM_DEVICE=PATH runs that binary instead of building the release one (to compare
# two builds in one session).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-10}
connections=${2:-32}
threads=${3:-1}
command -v wrk > /dev/null || { apt-get update -qq && apt-get install -y -qq wrk; }
if [ -n "${FCM_DEVICE:-}" ]; then
    binary=$FCM_DEVICE
else
    swift build -c release --product fcm-device 2>&1 | tail -n 1
    binary=.build/release/fcm-device
fi
work=$(mktemp -d)
trap 'kill "$server" 2> /dev/null || true; wait "$server" 2> /dev/null || true; rm -rf "$work"' EXIT
"$binary" serve --no-device-limits --ccs-port 0 --ccs-plain-port 0 --http-port 0 --state "$work/state" > "$work/log" &
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

rate() { # $1 url, $2 optional script: requests per second, whole
    local result
    if [ -n "${2:-}" ]; then
        result=$(wrk -t "$threads" -c "$connections" -d "${seconds}s" -s "$2" "$1")
    else
        result=$(wrk -t "$threads" -c "$connections" -d "${seconds}s" "$1")
    fi
    if echo "$result" | grep -qE 'Non-2xx|Socket errors'; then
        echo "errors in the run: $result" >&2
        exit 1
    fi
    echo "$result" | sed -n 's/^Requests\/sec: *\([0-9]*\).*/\1/p'
}

median() { printf '%s\n' "$@" | sort -n | sed -n "$(( ($# + 1) / 2 ))p"; }

legacy_script=$(post_script "{\"to\":\"$token\",\"data\":{\"score\":\"1-0\"}}" \
    "Authorization: key=demo-server-key" "Content-Type: application/json")
cp "$legacy_script" "$work/legacy.lua"
v1_script=$(post_script "{\"message\":{\"token\":\"$token\",\"data\":{\"score\":\"1-0\"}}}" \
    "Authorization: Bearer $bearer" "Content-Type: application/json")
cp "$v1_script" "$work/v1.lua"

echo "wrk: ${seconds}s a run, $connections connections, $threads thread(s), 3 interleaved rounds; serve (release) on port $port"
base=() legacy=() v1=()
for round in 1 2 3; do
    base+=("$(rate "http://127.0.0.1:$port/healthz")")
    legacy+=("$(rate "http://127.0.0.1:$port/fcm/send" "$work/legacy.lua")")
    v1+=("$(rate "http://127.0.0.1:$port/v1/projects/demo-project/messages:send" "$work/v1.lua")")
    echo "round $round: healthz ${base[-1]}/s  legacy ${legacy[-1]}/s  v1 ${v1[-1]}/s"
done
b=$(median "${base[@]}")
l=$(median "${legacy[@]}")
v=$(median "${v1[@]}")
echo "median: GET /healthz (trivial route) $b/s; POST /fcm/send $l/s ($(( 100 * l / b ))%); v1 messages:send $v/s ($(( 100 * v / b ))%)"
echo "accepted by the device: $(grep -c downstreamAccepted "$work/log") messages"
ps -o rss= -p "$server" | awk '{printf "serve resident memory at the end: %.0f MiB\n", $1 / 1024}'
