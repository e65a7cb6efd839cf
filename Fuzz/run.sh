#!/usr/bin/env bash
# Builds the libFuzzer targets (Fuzz/Sources) with the fuzzer and AddressSanitizer,
# then runs each for SECONDS (default 60) from its seed corpus in Fuzz/corpus/NAME.
# A crash leaves its input in Fuzz/crashes/ and fails the script: turn it into a
# regression test.  Usage: Fuzz/run.sh [SECONDS] [TARGET…]
set -euo pipefail
cd "$(dirname "$0")"
seconds=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(fuzz-json fuzz-xmpp fuzz-http fuzz-v1 fuzz-profile fuzz-webpush fuzz-mcs)
scratch=../.build-fuzz
flags=(-c debug --scratch-path "$scratch" -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library -Xswiftc -use-ld=lld)
for target in "${targets[@]}"; do
    swift build "${flags[@]}" --product "$target" 2>&1 | grep -E "error|Compiling fuzz|Build of" | grep -v "^warning" || true
done
bin=$(swift build "${flags[@]}" --show-bin-path)
mkdir -p crashes
status=0
for target in "${targets[@]}"; do
    work=$(mktemp -d)
    cp -r "corpus/$target/." "$work/" 2> /dev/null || true
    echo "== $target: ${seconds}s"
    if ! "$bin/$target" "$work" -max_total_time="$seconds" -max_len=8192 -timeout=10 -rss_limit_mb=2048 \
        -artifact_prefix="crashes/$target-" -print_final_stats=1 2> "$work/log"; then
        status=1
        tail -n 40 "$work/log"
    fi
    grep -E "^(stat::number_of_executed_units|stat::new_units_added)" "$work/log" | sed "s/^/   /"
    rm -rf "$work"
done
if [ $status -eq 0 ]; then echo "fuzz: ${#targets[@]} passed, 0 failed"; else echo "fuzz: a target crashed (see Fuzz/crashes)"; fi
exit $status
