"""The plain numpy transposed convolution of numpy_conv_transpose.py (the
definition, specification section 2) tested with iohw's pytest plugin on
the float forward cases of smoke.

    pytest examples/python/test_numpy_conv_transpose.py
"""
import os

import iohw
import iohw.pytest
import numpy_conv_transpose as ref


@iohw.pytest.cases(os.environ.get("IOHW_EXAMPLE_SUITE", "smoke"),
                   filter="dt=f64")
def test_numpy_conv_transpose(case):
    if case.direction != "fwd":
        raise iohw.Unsupported("forward only")
    case.check(ref.conv_transpose(case.x, case.w, case.bias, **case.attrs))
