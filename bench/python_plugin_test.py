"""The pytest plugin over a whole suite, each item checking the case's own
expected output (bench/python_overhead.sh)."""
import os

import iohw.pytest


@iohw.pytest.cases(os.environ["IOHW_BENCH_SUITE"])
def test_expected(case):
    case.check(case.expected)
