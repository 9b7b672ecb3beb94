"""Shared by the tests of the iohw Python package: a small case file
written by `iohw gen` (the problems below, ids problem.0 ...)."""
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
sys.path[:0] = [os.path.join(TOP, "python"), os.path.join(TOP, "examples", "python")]

PROBLEMS = [
    "ci=2 co=3 in=4x4 k=3x3 s=2x2 dt=f32 xl=NHWC wl=OIHW fill=normal seed=1",
    "ci=4 co=6 g=2 in=5 k=3 s=2 pad=1:0 bias=1 dt=f32 fill=normal seed=2",
    "ci=2 co=2 in=3x3 k=2x2 dt=f64 fill=normal seed=3",
    "ci=3 co=2 in=4x3 k=2x3 s=2x1 dt=f32 dir=bwd_d fill=normal seed=4",
    "ci=3 co=4 in=7 k=3 s=2 bias=1 dt=s8 fill=qrandom seed=5",
]


@pytest.fixture(scope="session")
def casefile(tmp_path_factory):
    import iohw
    path = str(tmp_path_factory.mktemp("cases") / "small.h5")
    iohw.generate(problem=PROBLEMS, out=path)
    return path
