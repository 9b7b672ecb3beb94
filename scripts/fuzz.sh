#!/usr/bin/env bash
# Builds the fuzz harnesses (tests/fuzz/fuzz_*.c) with clang's libFuzzer
# under AddressSanitizer and UndefinedBehaviorSanitizer, and runs each on a
# copy of its seed corpus.
#   scripts/fuzz.sh                    every harness, 60 s each
#   scripts/fuzz.sh --seconds 600 report journal
#   scripts/fuzz.sh --runs 3000        a fixed number of inputs each (ctest)
# Options: --build DIR (default build-fuzz), --case-seeds DIR (the HDF5
# seeds of case_file, written by the normal build's
# tests/fuzz/fuzz_make_case_seeds DIR; without them case_file starts from
# an empty corpus).
# Findings (crash-*, leak-*, timeout-* files) are left in the work folder
# named at the end; copy them into tests/fuzz/corpus/TARGET to keep them as
# regression inputs.  Exits 77 (a skip for ctest) when clang or its
# libFuzzer runtime is missing.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$root/build-fuzz"
case_seeds=""
runs=""
seconds=60
targets=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --build) build="$2"; shift 2 ;;
    --case-seeds) case_seeds="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --seconds) seconds="$2"; shift 2 ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    -*) echo "fuzz: unknown option $1" >&2; exit 2 ;;
    *) targets+=("$1"); shift ;;
  esac
done
[[ ${#targets[@]} -gt 0 ]] || targets=(descriptor layout filter case_file report journal baseline)
mkdir -p "$build"
build="$(cd "$build" && pwd)"
[[ -z "$case_seeds" || ! -d "$case_seeds" ]] || case_seeds="$(cd "$case_seeds" && pwd)"

clang=""
for c in clang-14 clang; do
  if command -v "$c" >/dev/null; then clang="$c"; break; fi
done
probe="$(mktemp -d)"
trap 'rm -rf "$probe"' EXIT
printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' \
  > "$probe/p.c"
if [[ -z "$clang" ]] || ! "$clang" -fsanitize=fuzzer "$probe/p.c" -o "$probe/p" 2>/dev/null; then
  echo "fuzz: skipped: clang with libFuzzer not found (apt-get install clang libclang-rt-14-dev, or scripts/setup.sh)"
  exit 77
fi

cmake -S "$root/tests/fuzz/libfuzzer" -B "$build" -DCMAKE_C_COMPILER="$clang" \
      -DCMAKE_BUILD_TYPE=Debug >/dev/null
cmake --build "$build" -j2 >/dev/null

work="$build/work"
rm -rf "$work"
mkdir -p "$work"
export ASAN_OPTIONS="allocator_may_return_null=1:detect_leaks=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export LSAN_OPTIONS="suppressions=$root/tests/lsan.supp:print_suppressions=0"
status=0
for t in "${targets[@]}"; do
  corpus="$work/$t"
  mkdir -p "$corpus"
  if [[ "$t" == case_file ]]; then
    [[ -n "$case_seeds" && -d "$case_seeds" ]] && cp "$case_seeds"/* "$corpus"/
  else
    cp "$root/tests/fuzz/corpus/$t"/* "$corpus"/
  fi
  limit=(-max_total_time="$seconds")
  [[ -n "$runs" ]] && limit=(-runs="$runs")
  echo "fuzz: $t (${limit[*]})"
  if ! (cd "$work" && "$build/fuzz_$t" -seed=1 -timeout=10 -rss_limit_mb=4096 \
          -max_len=65536 "${limit[@]}" "$corpus" >"$work/$t.log" 2>&1); then
    echo "fuzz: $t found a problem; see $work/$t.log and the crash-* files in $work" >&2
    tail -40 "$work/$t.log" >&2
    status=1
  else
    tail -1 "$work/$t.log"
  fi
done
echo "fuzz: work folder $work"
exit $status
