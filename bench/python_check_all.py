"""iohw.check on every case of a suite with the case's own expected output
(bench/python_overhead.sh): the per-case cost of judging from Python."""
import sys
import time

import iohw

suite = iohw.open_suite(sys.argv[1])
start = time.monotonic()
n = 0
for case in suite:
    verdict = iohw.check(case, case.expected)
    if verdict.status not in ("PASS", "UNSUPPORTED"):
        sys.exit("%s: %s %s" % (case.id, verdict.status, verdict.message))
    n += 1
print("checked %d cases in %.2f s" % (n, time.monotonic() - start))
