#!/usr/bin/python3
"""A library that ignores the dilation, behind the exec protocol
(docs/EXEC_PROTOCOL.md), for tests/test_exec_shape.c: it computes the
forward transposed convolution with dilation 1 on every axis and returns
that problem's own, smaller, output (4x4 where 5x5 is right).  The sums
are plain numpy loops (float64, rounded once to f32), independent of the
oracle:

    y[n, g*Mg + m, o] = bias[g*Mg + m]
        + sum over c, k, i with i*S + k - P_begin = o of
          x[n, g*Cg + c, i] * w[g*Cg + c, m, k]

on the output of extent (L - 1)*S - P_begin - P_end + (K - 1) + 1 + op.

    undilated.py [--big] [--p3] --describe | --serve | [--supports] IN.h5 OUT.h5

--p3 speaks protocol 3 (docs/EXEC_PROTOCOL.md: protocols=1 2 3,
supports=problem), serving requests after --serve.  Only f32, or a quantized case (specification section 11: s8/u8 x, w and
y, M in the scales form, ties to even; the accumulators as above with the
zero points subtracted, then y = clamp(zp_y + R(s_x * s_w[oc] / s_y * acc))
in exact rationals), in the layouts NC+spatial and IO+spatial; anything
else is refused.  --big returns a y of one more element per spatial axis than the
problem's (too large to keep: the shape alone is diagnosed).
"""
import itertools
import struct
import sys
from fractions import Fraction

import h5py
import numpy as np

SPATIAL = {1: "W", 2: "HW", 3: "DHW"}


def text(v):
    if hasattr(v, "item"):
        v = v.item()
    return v.decode("ascii") if isinstance(v, bytes) else str(v)


def quantized(a):
    """1 for a quantized case this program computes: s8/u8 x, w and y, M in
    the scales form, ties to even."""
    return (text(a["dtype"]) in ("s8", "u8") and
            text(a["y_dtype"]) in ("s8", "u8") and
            text(a["m_form"]) == "scales" and
            text(a["rounding"]) == "half_even")


def requantize(g, acc):
    """y = clamp(zp_y + R(M[oc] * acc)), M = s_x * s_w[oc] / s_y exactly
    (Fraction's round: ties to even)."""
    a = g.attrs
    sx, sy = Fraction(float(a["s_x"])), Fraction(float(a["s_y"]))
    sw = g["s_w"][()]
    pc, zp_y = int(a["per_channel"]), int(a["zp_y"])
    s8 = text(a["y_dtype"]) == "s8"
    lo, hi = (-128, 127) if s8 else (0, 255)
    y = np.empty(acc.shape, np.int8 if s8 else np.uint8)
    for idx in np.ndindex(*acc.shape):
        m = sx * Fraction(float(sw[idx[1] if pc else 0])) / sy
        y[idx] = min(hi, max(lo, zp_y + round(m * int(acc[idx]))))
    return y


def undilated(g):
    a = g.attrs
    R = int(a["rank"])
    G = int(a["groups"])
    ci, co = int(a["in_channels"]), int(a["out_channels"])
    L = [int(v) for v in a["in_size"]]
    K = [int(v) for v in a["kernel"]]
    S = [int(v) for v in a["stride"]]
    PB = [int(v) for v in a["pad_begin"]]
    PE = [int(v) for v in a["pad_end"]]
    OP = [int(v) for v in a["output_padding"]]
    O = [(L[r] - 1) * S[r] - PB[r] - PE[r] + K[r] + OP[r] for r in range(R)]
    quant = text(a["dtype"]) in ("s8", "u8")
    x = g["x"][()].astype(np.float64) - (int(a["zp_x"]) if quant else 0)
    w = g["w"][()].astype(np.float64) - (int(a["zp_w"]) if quant else 0)
    N = x.shape[0]
    Cg, Mg = ci // G, co // G
    y = np.zeros([N, co] + O)
    if int(a["has_bias"]):
        b = g["bias"][()].astype(np.float64)
        for c in range(co):
            y[:, c] += b[c]
    for n, gi, c, m in itertools.product(range(N), range(G), range(Cg),
                                         range(Mg)):
        for i in itertools.product(*[range(v) for v in L]):
            for k in itertools.product(*[range(v) for v in K]):
                o = tuple(i[r] * S[r] + k[r] - PB[r] for r in range(R))
                if all(0 <= o[r] < O[r] for r in range(R)):
                    y[(n, gi * Mg + m) + o] += (x[(n, gi * Cg + c) + i] *
                                                w[(gi * Cg + c, m) + k])
    return requantize(g, y) if quant else y.astype(np.float32)


def answer(big, query, in_path, out_path):
    with h5py.File(in_path, "r") as f:
        g = f["cases"][list(f["cases"].keys())[0]]
        a = g.attrs
        R = int(a["rank"])
        ok = ((text(a["dtype"]) == "f32" or quantized(a)) and
              text(a["data_layout"]) == "NC" + SPATIAL[R] and
              text(a["weight_layout"]) == "IO" + SPATIAL[R] and
              int(a["direction"] if "direction" in a else 0) == 0)
        if not ok:
            with h5py.File(out_path, "w") as out:
                out.attrs["unsupported"] = "undilated.py computes f32 (or s8/u8 " \
                    "with scales and half_even) in NC+spatial and IO+spatial only"
            return
        if query:
            h5py.File(out_path, "w").close()
            return
        if big:
            y = np.ones([int(g["x"].shape[0]), int(a["out_channels"])] +
                        [int(v) + 1 for v in a["out_size"]], np.float32)
        else:
            y = undilated(g)
    with h5py.File(out_path, "w") as out:
        out.create_dataset("y", data=y)


def describe(p3):
    text = "name=undilated.py\nversion=numpy %s\nquantized=1\n" % np.__version__
    return text + ("protocols=1 2 3\nsupports=problem\n" if p3 else "")


def serve(big):
    """Protocol 2 and 3: length-prefixed requests on stdin, replies on
    stdout."""
    inp, out = sys.stdin.buffer, sys.stdout.buffer
    while True:
        head = inp.read(4)
        if len(head) < 4:
            return 0
        words = inp.read(struct.unpack("<I", head)[0]).decode().split("\n")
        if words[0] == "describe":
            reply = "ok\n" + describe(True)
        else:
            try:
                answer(big, words[0] == "supports", words[1], words[2])
                reply = "ok"
            except Exception as e:  # the protocol's failure, one line
                reply = "error\nundilated.py: %s: %s" % (type(e).__name__, e)
        data = reply.encode()
        out.write(struct.pack("<I", len(data)) + data)
        out.flush()


def main(argv):
    big = "--big" in argv
    p3 = "--p3" in argv
    args = [v for v in argv[1:] if v not in ("--big", "--p3")]
    if args == ["--describe"]:
        sys.stdout.write(describe(p3))
        return 0
    if args == ["--serve"]:
        return serve(big)
    query = bool(args) and args[0] == "--supports"
    if query:
        args = args[1:]
    if len(args) != 2:
        sys.stderr.write("usage: %s [--big] --describe | [--supports] IN.h5 "
                         "OUT.h5\n" % argv[0])
        return 2
    try:
        answer(big, query, args[0], args[1])
    except Exception as e:  # reported on one line: the protocol's failure
        sys.stderr.write("undilated.py: %s: %s\n" % (type(e).__name__, e))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
