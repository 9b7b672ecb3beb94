"""An exec-protocol program that does no work (bench/python_overhead.sh):
iohw.serve around a function that answers zeros of the output's shape
and type (the case's y in IN.h5 is a NaN placeholder), so what `iohw run`
spends on it beyond the C reference is the Python side's overhead.  Its
cases fail; the bench runs both sides with --no-diagnose."""
import numpy as np

import iohw


def nowork(case):
    out = case.expected
    if isinstance(out, tuple):
        return tuple(np.zeros_like(a) for a in out)
    return np.zeros_like(out)


iohw.serve(nowork, describe={"name": "nowork", "version": "1"})
