"""The pytest side of iohw: one test item per case.

    import iohw.pytest

    @iohw.pytest.cases("smoke", filter="rank=2,dt=f32")
    def test_my_conv_transpose(case):
        case.check(my_conv_transpose(case.x, case.w, case.bias, **case.attrs))

The suite is a profile name (written once by `iohw gen` into the cache,
iohw.suite.cache_dir()) or a suite folder or case file.  Each item's id is
the case id, so -k, -x, --lf, -n and --junitxml work as usual.  case.check
fails the item with iohw's failure block (diagnosis, first mismatches,
repro line) and skips it when the judge says UNSUPPORTED; a test that raises
iohw.Unsupported("why") is skipped with that reason.  With the plugin
(`pytest -p iohw.pytest_plugin`), --iohw-isolate runs every item's function
in an exec-protocol program under `iohw run` (a crash fails that item
only).
"""
import functools
import os

import pytest as _pytest

from .case import Case
from .serve import Unsupported
from .suite import Suite, generate

PROFILES = ("smoke", "ci", "full", "models")


class ItemCase(Case):
    """A case whose check() fails or skips the running pytest item."""

    def check(self, y, **kw):
        v = Case.check(self, y, **kw)
        if v.status == "UNSUPPORTED":
            _pytest.skip(v.message)
        if not v.ok:
            _pytest.fail(v.block, pytrace=False)
        return v


class _Returned(Exception):
    """Carries y out of a test function run by the isolated program."""

    def __init__(self, y):
        Exception.__init__(self, "y")
        self.y = y


class CapturingCase(Case):
    """A case whose check(y) hands y to the isolated program (--iohw-isolate)."""

    def check(self, y, **kw):
        raise _Returned(y)


def suite_of(suite, filter=None):
    if isinstance(suite, Suite):
        return suite.select(filter) if filter else suite
    if suite in PROFILES and not os.path.exists(suite):
        return generate(profile=suite, filter=filter)
    return Suite(suite, filter)


def cases(suite, filter=None, argname="case"):
    """Parametrizes a test over the cases of suite matching filter (the
    expression of `iohw run --filter`), one item per case, ids the case
    ids."""
    if os.environ.get("IOHW_ISOLATED_PROGRAM") == "1":
        params = []     # the isolated program calls the function itself
    else:
        s = suite_of(suite, filter)
        params = [_pytest.param((f, cid), id=cid) for f, cid, _ in s.entries]

    def wrap(fn):
        @functools.wraps(fn)
        def test(*args, **kwargs):
            f, cid = kwargs[argname]
            isolate = os.environ.get("IOHW_PYTEST_ISOLATE") == "1"
            if isolate:
                from .isolate import run_isolated
                return run_isolated(fn, f, cid)
            kwargs[argname] = ItemCase(f, cid)
            try:
                return fn(*args, **kwargs)
            except Unsupported as e:
                _pytest.skip(str(e) or "unsupported")
        test.__iohw_function__ = fn
        return _pytest.mark.parametrize(argname, params)(test)
    return wrap
