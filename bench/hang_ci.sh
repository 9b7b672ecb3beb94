#!/bin/sh
# bench/hang_ci.sh - wall time of the ci profile against a backend that hangs
# on every rank-3 case (libiohw_fault_hang_rank3.so), with the circuit
# breaker and the scaled default timeout, on 2 jobs.  A measurement, not a
# test.  Usage: bench/hang_ci.sh BUILD_DIR [EXTRA iohw run OPTIONS...]
# (use a Release build; the suite is written to a temporary directory).
# Without the breaker and with the old fixed limit, for comparison (about
# 1089 rank-3 cases x 60 s / 2 jobs, some nine hours; sample it with
# --filter 'rank=3' --shard 1/100):
#   bench/hang_ci.sh build-release --breaker 0 --timeout 60
set -eu
build=${1:?usage: bench/hang_ci.sh BUILD_DIR [OPTIONS...]}
shift
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$build/iohw" gen --profile ci -o "$dir/ci" --threads 2 > /dev/null
rank3=$("$build/iohw" run --list "$dir/ci" --filter 'rank=3' | wc -l)
all=$("$build/iohw" run --list "$dir/ci" | wc -l)
echo "ci profile: $all cases, $rank3 of rank 3"
start=$(date +%s.%N)
rc=0
"$build/iohw" run --backend "$build/backends/libiohw_fault_hang_rank3.so" \
    "$dir/ci" --jobs 2 --quiet --no-diagnose "$@" > "$dir/out.txt" 2>&1 || rc=$?
end=$(date +%s.%N)
echo "exit status $rc; wall time $(echo "$end - $start" | bc) s"
echo "TIMEOUT after a backend call ran out: $(grep -c 'did not return within' "$dir/out.txt" || true)"
echo "TIMEOUT not run (circuit breaker):    $(grep -c 'message:   not run:' "$dir/out.txt" || true)"
grep -E '^(PASS|TIMEOUT|total) +[0-9]+$' "$dir/out.txt" || true
grep -E '^compared with the oracle' "$dir/out.txt" || true
