#!/usr/bin/env bash
# The main job: installs what is missing, builds iohw and its backends
# (optimised), writes the default suite (the ci profile), runs it against the
# bundled reference backend and every third-party adapter that was built
# (oneDNN, XNNPACK, libtorch; with --adapt-layout and each adapter's baseline
# of known library discrepancies, backends/NAME/baseline-PROFILE.txt, whose
# entries may hold only on some CPUs), prints each summary with the machine
# it ran on and writes every report under out/reports/.  Then TensorFlow.js
# (cpu and wasm) through the exec backend, when node and its npm packages
# are there.  The libraries run
# as they ship: nothing pins their kernels here.
#   IOHW_PROFILE=smoke scripts/main.sh   a smaller suite
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
build=${IOHW_BUILD:-build}
out=${IOHW_OUT:-out}
profile=${IOHW_PROFILE:-ci}
mkdir -p "$out"
echo "building iohw in $build/ (log: $out/build.log)"
if ! { cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DIOHW_BUILD_TESTS=OFF &&
       cmake --build "$build" -j "$(nproc)"; } > "$out/build.log" 2>&1; then
  tail -n 40 "$out/build.log" >&2
  echo "main: the build failed (full log: $out/build.log)" >&2
  exit 2
fi
grep -E '^-- (iohw|.*adapter|.*not found|Skipping)' "$out/build.log" || true

suite="$out/suite-$profile"
rm -rf "$suite"
"$build/iohw" gen --profile "$profile" -o "$suite"

mkdir -p "$out/reports"
status=0
# run_suite NAME LIB BASELINE: runs the suite against LIB with --adapt-layout
# and BASELINE (when that file exists), writes the reports
# out/reports/NAME.*, prints the summary and sets status on a failure.
run_suite() {
  local name=$1 lib=$2 baseline=$3 rc=0
  local args=(--backend "$lib" "$suite" --quiet --adapt-layout
              --journal "$out/reports/$name.journal"
              --json "$out/reports/$name.json" --junit "$out/reports/$name.xml"
              --html "$out/reports/$name.html" --markdown "$out/reports/$name.md")
  if [[ -f "$baseline" ]]; then
    args+=(--baseline "$baseline")
  fi
  echo
  echo "== $name on the $profile profile"
  "$build/iohw" run "${args[@]}" > "$out/reports/$name.txt" || rc=$?
  # The summary (the failure blocks, if any, are in the .txt file): the
  # backend's version and the machine, then the table by status.
  grep -m 2 -E '^(backend|machine): ' "$out/reports/$name.txt" || true
  sed -n '/^status/,$p' "$out/reports/$name.txt" | sed -n '1,/^$/p'
  tail -n 1 "$out/reports/$name.txt"
  if [[ $rc -ne 0 ]]; then
    echo "   (failure details: $out/reports/$name.txt)"
    status=1
  fi
}
for name in reference onednn xnnpack torch; do
  lib="$build/backends/libiohw_$name.so"
  if [[ ! -f "$lib" ]]; then
    echo "== $name: not built (its library was not found), skipped"
    continue
  fi
  run_suite "$name" "$lib" "backends/$name/baseline-$profile.txt"
done

# TensorFlow.js through the exec backend (backends/js/tfjs_backend.js, exec
# protocol 2), its cpu and wasm backends, with the npm packages of
# $build/js/node_modules (backends/js/package.json) and their baselines
# backends/js/baseline-tfjs-{cpu,wasm}-PROFILE.txt.  Skipped, saying why,
# without node or those packages.
js_modules="$(cd "$build" && pwd)/js/node_modules"
for tfjs in cpu wasm; do
  name=tfjs-$tfjs
  if ! command -v node > /dev/null; then
    echo "== $name: skipped (node is not installed)"
    continue
  fi
  if [[ ! -d "$js_modules/@tensorflow/tfjs-core" || ! -d "$js_modules/h5wasm" ]]; then
    echo "== $name: skipped (no npm packages in $js_modules; scripts/setup_js.sh installs them)"
    continue
  fi
  IOHW_JS_MODULES="$js_modules" \
    IOHW_EXEC_COMMAND="node backends/js/tfjs_backend.js --tfjs-backend=$tfjs" \
    run_suite "$name" "$build/backends/libiohw_exec.so" \
    "backends/js/baseline-$name-$profile.txt"
done

echo
echo "reports: $out/reports/<backend>.{json,xml,html,md,txt}"
exit $status
