#!/usr/bin/env bash
# The serving path as ratios to a bare route, against a recorded baseline: CCS
# downstream messages a second on one plain connection, and HTTP legacy and v1 sends a
# second, each divided by GET /healthz requests a second measured in the same run on
# the same machine. A ratio does not move with how fast the machine is today, so a
# change that costs the serving path a quarter shows in its own run, however noisy the
# machine, against Benchmarks/serving-baseline.txt (c09d172, before the issues that
# cost a quarter, measured on this machine's kind).
#
# Usage: Benchmarks/serving-ratio.sh [--strict] [FCM_DEVICE [XMPP_LOAD]]
#   FCM_DEVICE: a release build of fcm-device (built when not given);
#   XMPP_LOAD:  a release build of the xmpp-load generator (built when not given).
# Prints each ratio, the baseline's and the change. Timings are never a verdict of
# their own: it exits 0, unless --strict and a ratio is below 75% of its baseline.
set -euo pipefail
cd "$(dirname "$0")/.."
strict=false
if [ "${1:-}" = "--strict" ]; then
    strict=true
    shift
fi
binary=${1:-}
load=${2:-}
if [ -z "$binary" ]; then
    swift build -c release --product fcm-device 2>&1 | tail -n 1
    binary=.build/release/fcm-device
fi
if [ -z "$load" ]; then
    swift build -c release --product xmpp-load 2>&1 | tail -n 1
    load=$(swift build -c release --show-bin-path)/xmpp-load
fi
seconds=${SERVING_RATIO_SECONDS:-3}
messages=${SERVING_RATIO_MESSAGES:-50000}

http=$(FCM_DEVICE="$binary" bash Benchmarks/http-load.sh "$seconds" 32 1)
echo "$http"
line=$(echo "$http" | grep '^median:')
healthz=$(echo "$line" | sed 's/.*GET \/healthz (trivial route) \([0-9]*\)\/s.*/\1/')
legacy=$(echo "$line" | sed 's/.*POST \/fcm\/send \([0-9]*\)\/s.*/\1/')
v1=$(echo "$line" | sed 's/.*v1 messages:send \([0-9]*\)\/s.*/\1/')

ccs_line=$("$load" "$binary" one "$messages" 3 | grep 'msg/s')
echo "$ccs_line"
# The runs' rates, comma-separated.
ccs=$(echo "$ccs_line" | sed 's/.*a run: \(.*\) msg\/s/\1/' | tr -d ' ')

python3 - "$healthz" "$legacy" "$v1" "$ccs" "$strict" << 'PY'
import statistics
import sys
try:
    healthz, legacy, v1 = (float(x) for x in sys.argv[1:4])
    ccs = statistics.median(float(x) for x in sys.argv[4].split(","))
    assert healthz > 0
except (ValueError, AssertionError):
    sys.exit(f"serving-ratio: could not read the rates (healthz {sys.argv[1]!r}, CCS {sys.argv[4]!r})")
strict = sys.argv[5] == "true"
baseline = {}
for line in open("Benchmarks/serving-baseline.txt"):
    line = line.split("#", 1)[0].split()
    if len(line) == 2:
        baseline[line[0]] = float(line[1])
measured = {
    "ccs-per-healthz": ccs / healthz,
    "legacy-per-healthz": legacy / healthz,
    "v1-per-healthz": v1 / healthz,
}
print(f"GET /healthz {healthz:.0f}/s, CCS one connection {ccs:.0f} msg/s, legacy {legacy:.0f}/s, v1 {v1:.0f}/s")
low = []
for name, ratio in measured.items():
    base = baseline.get(name)
    if base is None:
        print(f"{name:<20} {ratio:.3f} (no baseline)")
        continue
    change = ratio / base - 1
    flag = "  BELOW 75% OF THE BASELINE" if ratio < 0.75 * base else ""
    if flag:
        low.append(name)
    print(f"{name:<20} {ratio:.3f}  baseline (c09d172) {base:.3f}  {change:+.0%} ({ratio / base:.2f}x){flag}")
sys.exit(1 if strict and low else 0)
PY
