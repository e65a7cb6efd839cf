#!/usr/bin/env bash
# Resident memory of `serve` with N idle phones, against one phone in the same run:
# (RSS(N) - RSS(1)) / N is what one idle phone costs. Run on purpose, with a release
# build: Benchmarks/fleet-memory.sh [.build/release/fcm-device] [N]
set -euo pipefail
bin=${1:-.build/release/fcm-device}
count=${2:-100000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

rss_with() {
    local n=$1
    cat > "$work/fleet-$n.yaml" <<YAML
version: 1
devices: { count: $n, like: { name: phone, seed: 3 } }
senders: [ { id: "123456789012", key: k } ]
YAML
    "$bin" serve --no-device-limits --profile "$work/fleet-$n.yaml" --state "$work/state-$n" --http-port 0 --ccs-port 0 \
        --ccs-plain-port 0 > "$work/out-$n.txt" 2>&1 &
    local pid=$!
    # Ready once it says where it listens and every phone has its token.
    for _ in $(seq 1 600); do
        [[ -f "$work/state-$n/fleet-$n.running.json" ]] && (( $(grep -c onNewToken "$work/out-$n.txt" || true) >= n )) && break
        sleep 0.5
    done
    sleep 3
    local rss
    rss=$(awk '/VmRSS/ { print $2 }' "/proc/$pid/status")
    awk '/VmHWM/ { print $2 }' "/proc/$pid/status" > "$work/peak-$n.txt"
    kill -TERM "$pid"
    wait "$pid" 2>/dev/null || true
    echo "$rss"
}

one=$(rss_with 1)
many=$(rss_with "$count")
echo "serve with 1 phone: ${one} KiB resident"
echo "serve with $count phones: ${many} KiB resident (peak while starting: $(cat "$work/peak-$count.txt") KiB)"
awk -v a="$one" -v b="$many" -v n="$count" 'BEGIN { printf "per idle phone: %.2f KiB (target 4 KiB)\n", (b - a) / n }'
