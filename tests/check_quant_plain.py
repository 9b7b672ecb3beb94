#!/usr/bin/python3
"""The exec Python example's quantized arithmetic
(backends/python/quant_plain.py, plain numpy written from the
specification section 11) on tests/check_quant.py's problems, with the
same input and output, so that tests/test_oracle_quant_python.c checks the
oracle against it too.

Usage: /usr/bin/python3 tests/check_quant_plain.py PROBLEMS OUT
Exit status 0, 2 on bad usage, 3 when numpy is missing.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "backends", "python"))

try:
    import numpy as np
except ImportError:
    print("check_quant_plain.py: numpy is missing")
    sys.exit(3)

import quant_plain  # noqa: E402
import check_quant  # noqa: E402  (the problem format only)
from check_quant import floats, ints  # noqa: E402


def solve(d):
    R = int(d["rank"][0])
    N, C_in, C_out, G = (int(d[k][0]) for k in ("batch", "ci", "co", "groups"))
    L, K, S, D = (ints(d, k) for k in ("in", "kernel", "stride", "dilation"))
    Pb, Pe, A = (ints(d, k) for k in ("pad_begin", "pad_end", "out_pad"))
    prob = {"rank": R, "groups": G, "kernel": K, "stride": S, "dilation": D,
            "pad_begin": Pb,
            "out_size": [(L[a] - 1) * S[a] - Pb[a] - Pe[a] + D[a] * (K[a] - 1)
                         + A[a] + 1 for a in range(R)]}
    q = {"y_dtype": d["y_dtype"][0], "rounding": d["rounding"][0],
         "m_form": d["m_form"][0], "per_channel": int(d["per_channel"][0]),
         "s_x": floats(d, "s_x")[0], "s_y": floats(d, "s_y")[0],
         "s_w": floats(d, "s_w"), "multiplier": ints(d, "multiplier"),
         "shift": ints(d, "shift")}
    for key in ("zp_x", "zp_w", "zp_y"):
        q[key] = int(d[key][0])
    x = np.array(ints(d, "x"), dtype=np.int64).reshape([N, C_in] + L)
    w = np.array(ints(d, "w"), dtype=np.int64).reshape([C_in, C_out // G] + K)
    bias = None if d["bias"][0] == "none" else np.array(ints(d, "bias"))
    try:
        y = quant_plain.conv_transpose_quant(x, w, bias, prob, q)
    except ValueError as e:  # gemmlowp's left shift leaves int32
        return "invalid %s" % e
    return "y " + " ".join(str(int(v)) for v in y.ravel())


if __name__ == "__main__":
    sys.exit(check_quant.main(solve, __doc__))
