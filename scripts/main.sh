#!/usr/bin/env bash
# The main job: installs what is missing, builds iohw and its backends
# (optimised), writes the default suite (the ci profile), runs it against the
# bundled reference backend and every third-party adapter that was built
# (oneDNN, XNNPACK, libtorch, Arm NN, OpenCV DNN; with --adapt-layout and each adapter's
# baseline of known library discrepancies, backends/NAME/baseline-PROFILE.txt,
# whose entries may hold only on some CPUs), then the JavaScript adapters through
# the exec backend (ONNX Runtime: backends/js/ort_backend.js, its baseline
# backends/js/baseline-ort-PROFILE.txt; TensorFlow.js, cpu and wasm:
# backends/js/tfjs_backend.js; skipped when node or the npm packages of
# scripts/setup_js.sh are missing), prints each summary with the machine
# it ran on and writes every report under out/reports/.  The libraries run
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
# run_one NAME LIB BASELINE [VAR=VALUE...]: the suite through LIB (with the
# environment assignments), its reports as out/reports/NAME.*.
run_one() {
  local name=$1 lib=$2 baseline=$3
  shift 3
  args=(--backend "$lib" "$suite" --quiet --adapt-layout
        --journal "$out/reports/$name.journal"
        --json "$out/reports/$name.json" --junit "$out/reports/$name.xml"
        --html "$out/reports/$name.html" --markdown "$out/reports/$name.md")
  if [[ -f "$baseline" ]]; then
    args+=(--baseline "$baseline")
  fi
  echo
  echo "== $name on the $profile profile"
  rc=0
  env "$@" "$build/iohw" run "${args[@]}" > "$out/reports/$name.txt" || rc=$?
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
for name in reference onednn xnnpack torch armnn opencv; do
  lib="$build/backends/libiohw_$name.so"
  if [[ ! -f "$lib" ]]; then
    echo "== $name: not built (its library was not found), skipped"
    continue
  fi
  run_one "$name" "$lib" "backends/$name/baseline-$profile.txt"
done

# The JavaScript adapters: node programs behind the exec backend (protocols
# 2 and 3), their npm packages in $build/js (scripts/setup_js.sh).
echo
bash scripts/setup_js.sh "$build" || true
# ONNX Runtime in its two npm packages (backends/js/ort_backend.js):
# onnxruntime-node (CPU EP, baselines backends/js/baseline-ort-PROFILE.txt)
# and onnxruntime-web (wasm EP, backends/js/baseline-ort-web-PROFILE.txt).
for ort in node web; do
  name=ort; [[ $ort == web ]] && name=ort-web
  if ! command -v node >/dev/null 2>&1; then
    echo "== $name: node not found, skipped"
  elif [[ ! -f "$build/js/node_modules/onnxruntime-$ort/package.json" ]]; then
    echo "== $name: the npm packages are not installed in $build/js (scripts/setup_js.sh), skipped"
  else
    run_one "$name" "$build/backends/libiohw_exec.so" "backends/js/baseline-$name-$profile.txt" \
      IOHW_JS_DIR="$build/js" IOHW_EXEC_COMMAND="node backends/js/ort_backend.js --ort=$ort"
  fi
done
# TensorFlow.js, its cpu and wasm backends (backends/js/tfjs_backend.js;
# baselines backends/js/baseline-tfjs-{cpu,wasm}-PROFILE.txt).
for tfjs in cpu wasm; do
  if ! command -v node >/dev/null 2>&1; then
    echo "== tfjs-$tfjs: node not found, skipped"
  elif [[ ! -f "$build/js/node_modules/@tensorflow/tfjs-backend-$tfjs/package.json" ]]; then
    echo "== tfjs-$tfjs: the npm packages are not installed in $build/js (scripts/setup_js.sh), skipped"
  else
    run_one "tfjs-$tfjs" "$build/backends/libiohw_exec.so" \
      "backends/js/baseline-tfjs-$tfjs-$profile.txt" IOHW_JS_DIR="$build/js" \
      IOHW_EXEC_COMMAND="node backends/js/tfjs_backend.js --tfjs-backend=$tfjs"
  fi
done
# LiteRT (TensorFlow Lite in WebAssembly), its XNNPack delegate and its
# builtin transpose_conv kernel (backends/js/litert_backend.js --kernel=K;
# baselines backends/js/baseline-litert-{xnnpack,builtin}-PROFILE.txt).
for litert in xnnpack builtin; do
  if ! command -v node >/dev/null 2>&1; then
    echo "== litert-$litert: node not found, skipped"
  elif [[ ! -f "$build/js/node_modules/@litertjs/core/package.json" ]]; then
    echo "== litert-$litert: the npm packages are not installed in $build/js (scripts/setup_js.sh), skipped"
  else
    run_one "litert-$litert" "$build/backends/libiohw_exec.so" \
      "backends/js/baseline-litert-$litert-$profile.txt" IOHW_JS_DIR="$build/js" \
      IOHW_EXEC_COMMAND="node backends/js/litert_backend.js --kernel=$litert"
  fi
done
# The Python package (python/, docs/PYTHON.md): `import iohw` in
# /usr/bin/python3 through a .pth file in the system site-packages.
bash scripts/install_python.sh || echo "== python: the iohw package was not installed (scripts/install_python.sh)"
echo
echo "reports: $out/reports/<backend>.{json,xml,html,md,txt}"
exit $status
