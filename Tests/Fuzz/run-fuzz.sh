#!/usr/bin/env bash
# make fuzz: runs each libFuzzer target of byteclub-fuzz for FUZZ_TIME seconds over a copy of its
# committed seeds (Tests/Fuzz/<target>/), FUZZ_PARALLEL targets at a time, niced so builds keep
# their cores. Findings (crash-*, timeout-*, oom-*) go to $FUZZ_OUT/findings/<target>/; prints a
# table and exits 1 when any target found one.
#
# usage: run-fuzz.sh BINARY [TARGET...]   (no TARGET: every folder under Tests/Fuzz)
set -uo pipefail
binary=$1; shift
here=$(cd "$(dirname "$0")" && pwd)
time=${FUZZ_TIME:-60}
out=${FUZZ_OUT:-.build-fuzz/fuzz-out}
parallel=${FUZZ_PARALLEL:-2}
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    mapfile -t targets < <("$binary" --list | cut -f1)
fi
mkdir -p "$out"

run_one() {
    local target=$1
    mkdir -p "$out/corpus/$target" "$out/findings/$target"
    cp -n "$here/$target"/* "$out/corpus/$target/" 2>/dev/null
    # Leaks are not findings: the Swift runtime's caches outlive the process on purpose.
    # Swift's own backtracer would race AddressSanitizer's report of the same trap.
    SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1 nice -n 10 "$binary" "$target" \
        -max_total_time="$time" -max_len=4096 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$out/findings/$target/" "$out/corpus/$target" > "$out/$target.log" 2>&1
}
export -f run_one
export out time here binary

printf '%s\n' "${targets[@]}" | xargs -P "$parallel" -I{} bash -c 'run_one {}'

found=0
printf '%-20s %12s %8s %8s %8s\n' target executions exec/s coverage findings
for target in "${targets[@]}"; do
    log="$out/$target.log"
    runs=$(awk '/stat::number_of_executed_units:/ {print $2}' "$log")
    rate=$(awk '/stat::average_exec_per_sec:/ {print $2}' "$log")
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | awk '{print $2}')
    findings=$(find "$out/findings/$target" -type f | wc -l)
    [ "$findings" -gt 0 ] && found=1
    printf '%-20s %12s %8s %8s %8s\n' "$target" "${runs:-?}" "${rate:-?}" "${cov:-?}" "$findings"
done
if [ "$found" -ne 0 ]; then
    echo "make fuzz: findings in $out/findings (replay one with: swift run byteclub-fuzz TARGET FILE)" >&2
    exit 1
fi
