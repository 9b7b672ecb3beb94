#!/bin/sh
# bench/python_overhead.sh - what the Python side costs per case, measured
# side by side on one suite in one run (docs/PYTHON.md): the C reference
# backend under `iohw run`; iohw.serve around a function that does no work
# (bench/python_nowork.py) under `iohw run` through the exec backend; the
# pytest plugin over the suite (bench/python_plugin_test.py); iohw.check on
# every case from a loop (bench/python_check_all.py).  Prints seconds,
# milliseconds per case and the difference to the C reference.  A Release
# build on a quiet machine gives the figures worth quoting.
# Usage: bench/python_overhead.sh BUILD_DIR [PROFILE] [JOBS]   (smoke, 2)
set -eu
build=${1:?usage: bench/python_overhead.sh BUILD_DIR [PROFILE] [JOBS]}
profile=${2:-smoke}
jobs=${3:-2}
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
py=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$build/iohw" gen --profile "$profile" -o "$tmp/suite" > /dev/null
n=$(cut -f1 "$tmp/suite/manifest.txt" | wc -l)
export IOHW_BIN="$build/iohw" IOHW_EXEC_LIB="$build/backends/libiohw_exec.so"
export PYTHONPATH="$top/python" IOHW_CACHE="$tmp/cache"

# seconds COMMAND...: the wall time of COMMAND (its output discarded).
seconds() {
    s=$(date +%s.%N)
    "$@" > "$tmp/out.txt" 2>&1 || true
    e=$(date +%s.%N)
    awk -v s="$s" -v e="$e" 'BEGIN { printf "%.3f", e - s }'
}
c=$(seconds "$build/iohw" run --backend "$build/backends/libiohw_reference.so" \
    "$tmp/suite" --jobs "$jobs" --quiet --no-diagnose)
s=$(IOHW_EXEC_COMMAND="$py $here/python_nowork.py" seconds "$build/iohw" run \
    --backend "$build/backends/libiohw_exec.so" "$tmp/suite" --jobs "$jobs" --quiet \
    --no-diagnose)
grep -E '^(FAIL|UNSUPPORTED|ERROR) ' "$tmp/out.txt" | sed -n '/^status/,/^total/p' || true
grep -E '^(PASS|FAIL|UNSUPPORTED|ERROR|CRASH) +[0-9]' "$tmp/out.txt" | tr -s ' ' | tr '\n' ' '; echo
p=$(IOHW_BENCH_SUITE="$tmp/suite" seconds $py -m pytest -q -p no:cacheprovider \
    -p iohw.pytest_plugin "$here/python_plugin_test.py")
tail -n 1 "$tmp/out.txt"
k=$(seconds $py "$here/python_check_all.py" "$tmp/suite")
tail -n 1 "$tmp/out.txt"
printf '%-42s %8s %10s %14s\n' "$profile: $n cases, $jobs jobs" seconds "ms/case" "ms/case over C"
row() { awk -v t="$2" -v c="$c" -v n="$n" -v what="$1" \
        'BEGIN { printf "%-42s %8.2f %10.2f %14.2f\n", what, t, t * 1000 / n, (t - c) * 1000 / n }'; }
row "C reference (iohw run)" "$c"
row "iohw.serve, no work (iohw run, exec)" "$s"
row "pytest plugin (one item per case)" "$p"
row "iohw.check in a loop" "$k"
