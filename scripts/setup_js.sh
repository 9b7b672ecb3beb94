#!/usr/bin/env bash
# Installs the npm packages of the JavaScript adapters (backends/js/package.json,
# pinned by backends/js/package-lock.json) into BUILD_DIR/js/node_modules, with
# the machine's node and npm: `npm ci --ignore-scripts` from the registry the lock names,
# no global install, no install script (onnxruntime-node's would fetch more;
# the CPU binaries it ships are used).  Runs npm only when the lock file
# differs from the one last installed; safe to run any number of times.
#   scripts/setup_js.sh BUILD_DIR
# Without node or npm it says so in one line and succeeds (the adapters are
# then skipped); a failing npm ci fails (its log: BUILD_DIR/js/npm.log).
# The adapters find the packages through IOHW_JS_DIR=BUILD_DIR/js.
set -euo pipefail
if [[ $# -ne 1 ]]; then
  echo "usage: scripts/setup_js.sh BUILD_DIR" >&2
  exit 2
fi
src=$(cd "$(dirname "$0")/../backends/js" && pwd)
dest=$1/js

for tool in node npm; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "setup_js: $tool not found: the JavaScript adapters (backends/js) are skipped"
    exit 0
  fi
done

# The stamp is the lock file of the last successful install.
stamp=$dest/installed-package-lock.json
if [[ -d $dest/node_modules ]] && cmp -s "$src/package-lock.json" "$stamp" 2>/dev/null; then
  exit 0
fi

mkdir -p "$dest"
cp "$src/package.json" "$src/package-lock.json" "$dest/"
rm -f "$stamp"
echo "setup_js: npm ci into $dest (node $(node --version), npm $(npm --version))"
if ! (cd "$dest" && npm ci --ignore-scripts --no-audit --no-fund) > "$dest/npm.log" 2>&1; then
  tail -n 5 "$dest/npm.log" >&2
  echo "setup_js: npm ci failed (log: $dest/npm.log)" >&2
  exit 1
fi
cp "$src/package-lock.json" "$stamp"
