#!/usr/bin/env bash
# Makes `import iohw` work in Debian's /usr/bin/python3 without the network:
# a .pth file (iohw.pth, one line: this checkout's python/ folder) in the
# system's site-packages (/usr/local/lib/python3.X/dist-packages).  Nothing
# is copied: the package follows the checkout.  The package finds the iohw
# program through $IOHW_BIN, PATH, or this checkout's build/ folder
# (docs/PYTHON.md).  Safe to run any number of times.
#   scripts/install_python.sh            install the .pth
#   scripts/install_python.sh --remove   remove it
# IOHW_PYTHON_SITE=DIR puts the .pth into DIR instead (a test, a venv).
set -euo pipefail
cd "$(dirname "$0")/.."
py=/usr/bin/python3
site=${IOHW_PYTHON_SITE:-$("$py" -c 'import site; print(site.getsitepackages()[0])')}
pth="$site/iohw.pth"
sudo=()
if [[ ! -w "$site" && ! -w "$(dirname "$site")" && $(id -u) -ne 0 ]]; then
  sudo=(sudo)
fi
if [[ ${1:-} == --remove ]]; then
  "${sudo[@]}" rm -f "$pth"
  exit 0
fi
"${sudo[@]}" mkdir -p "$site"
echo "$PWD/python" | "${sudo[@]}" tee "$pth" >/dev/null
"$py" -c "import site; site.addsitedir('$site'); import iohw" || { echo "install_python: import iohw failed" >&2; exit 1; }
echo "install_python: $pth -> $PWD/python"
