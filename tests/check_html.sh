#!/usr/bin/env bash
# tests/check_html.sh REPORT.html [SCREENSHOT.png]
#
# Opens an iohw HTML report in headless Chromium and checks that it renders
# without errors: the page's own script ran to its end (it sets
# data-iohw-ready="1" on <body>), no script error was recorded
# (data-iohw-js-error) or logged ("Uncaught"), and the page tried to load
# nothing (its Content Security Policy would log "Refused to ...").  With a
# second argument, also writes a screenshot of the page.
#
# Exit status: 0 good, 1 a check failed, 77 Chromium is not installed
# (IOHW_CHROMIUM overrides /usr/bin/chromium).
set -euo pipefail

if [[ $# -lt 1 || $# -gt 2 ]]; then
  echo "usage: $0 REPORT.html [SCREENSHOT.png]" >&2
  exit 2
fi
chromium=${IOHW_CHROMIUM:-/usr/bin/chromium}
if [[ ! -x $chromium ]]; then
  echo "check_html: $chromium is not installed (apt-get install chromium)" >&2
  exit 77
fi
html=$(realpath "$1")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

flags=(--headless --no-sandbox --disable-gpu --disable-dev-shm-usage
       --disable-background-networking --disable-component-update --disable-sync
       --no-first-run --no-default-browser-check --user-data-dir="$work/profile"
       --enable-logging=stderr --v=0 --virtual-time-budget=10000)

# Sanitizer settings of the calling test must not reach Chromium.
unset ASAN_OPTIONS UBSAN_OPTIONS LSAN_OPTIONS LD_PRELOAD

status=0
if ! timeout 120 "$chromium" "${flags[@]}" --dump-dom "file://$html" \
     >"$work/dom.html" 2>"$work/log.txt"; then
  echo "check_html: chromium failed on $html" >&2
  tail -n 20 "$work/log.txt" >&2
  exit 1
fi
# Only attributes of <body> count: the text of the page may quote anything.
if ! grep -Eq '<body[^>]* data-iohw-ready="1"' "$work/dom.html"; then
  echo "check_html: the page's script did not finish (no data-iohw-ready)" >&2
  status=1
fi
if grep -Eq '<body[^>]* data-iohw-js-error=' "$work/dom.html"; then
  echo "check_html: script error: $(grep -Eo '<body[^>]*>' "$work/dom.html")" >&2
  status=1
fi
if grep -E 'Uncaught|Refused to' "$work/log.txt" >&2; then
  echo "check_html: errors in the console log (above)" >&2
  status=1
fi
if ! grep -q 'id="pair-grid"><table>' "$work/dom.html"; then
  echo "check_html: the pair explorer was not built" >&2
  status=1
fi

if [[ $# -eq 2 && $status -eq 0 ]]; then
  out=$(realpath -m "$2")
  timeout 120 "$chromium" "${flags[@]}" --hide-scrollbars --window-size=1280,1600 \
    --screenshot="$out" "file://$html" >/dev/null 2>>"$work/log.txt" || status=1
  [[ -s $out ]] || { echo "check_html: no screenshot written" >&2; status=1; }
fi
[[ $status -eq 0 ]] && echo "check_html: $html renders without errors"
exit $status
