#!/usr/bin/python3
"""An independent quantized transposed convolution, written from the
specification section 11 (docs/SPEC.md) with Python integers and fractions.

Usage: /usr/bin/python3 tests/check_quant.py PROBLEMS OUT

PROBLEMS holds problems separated by lines "---"; each is lines "key v v ...":
  rank R, batch, ci, co, groups, in, kernel, stride, dilation, pad_begin,
  pad_end, out_pad (R values each), x_dtype, w_dtype, y_dtype (s8 u8 s32),
  zp_x, zp_w, zp_y, rounding (half_even half_away half_up gemmlowp),
  m_form (scales fixed), per_channel (0 1), s_x, s_y, s_w (binary32 values
  in C's %a hex notation), multiplier, shift, bias (C_out values or none),
  x (N*C_in*L... values, row-major), w (C_in*Mg*K... values).
OUT receives one line per problem: "y v v ..." (N*C_out*O... values,
row-major), or "invalid REASON" when the specification calls the case
invalid (gemmlowp: acc * 2^max(sh, 0) leaves int32).
Exit status 0, 2 on bad usage, 3 when numpy is missing.
"""
import sys
from fractions import Fraction
from math import floor

try:
    import numpy as np
except ImportError:
    print("check_quant.py: numpy is missing")
    sys.exit(3)

RANGE = {"s8": (-128, 127), "u8": (0, 255), "s32": (-2 ** 31, 2 ** 31 - 1)}
INT32 = RANGE["s32"]


def parse(block):
    d = {}
    for line in block.strip().splitlines():
        key, *vals = line.split()
        d[key] = vals
    return d


def ints(d, key):
    return [int(v) for v in d[key]]


def floats(d, key):
    return [float.fromhex(v) for v in d[key]]


def half_even(v):
    fl = floor(v)
    frac = v - fl
    if frac < Fraction(1, 2):
        return fl
    if frac > Fraction(1, 2):
        return fl + 1
    return fl if fl % 2 == 0 else fl + 1


def half_away(v):
    sgn = 1 if v > 0 else -1 if v < 0 else 0
    return sgn * floor(abs(v) + Fraction(1, 2))


def half_up(v):
    return floor(v + Fraction(1, 2))


def trunc_div(a, b):
    """a / b rounded toward zero, b > 0."""
    q = abs(a) // b
    return q if a >= 0 else -q


def gemmlowp(acc, q, sh):
    left, right = max(sh, 0), max(-sh, 0)
    a = acc * 2 ** left
    if not INT32[0] <= a <= INT32[1]:
        return None
    if a == q == -2 ** 31:
        h = 2 ** 31 - 1
    else:
        p = a * q
        nudge = 2 ** 30 if p >= 0 else 1 - 2 ** 30
        h = trunc_div(p + nudge, 2 ** 31)
    mask = 2 ** right - 1
    rem = h & mask
    threshold = (mask >> 1) + (1 if h < 0 else 0)
    return (h >> right) + (1 if rem > threshold else 0)


def requantize(d, oc, acc):
    """R(M[oc] * acc), or None for an invalid gemmlowp case."""
    j = oc if int(d["per_channel"][0]) else 0
    mode = d["rounding"][0]
    if d["m_form"][0] == "scales":
        s_x, s_y = Fraction(floats(d, "s_x")[0]), Fraction(floats(d, "s_y")[0])
        m = s_x * Fraction(floats(d, "s_w")[j]) / s_y
    else:
        q, sh = ints(d, "multiplier")[j], ints(d, "shift")[j]
        if mode == "gemmlowp":
            return gemmlowp(acc, q, sh)
        m = Fraction(q) * Fraction(2) ** (sh - 31)
    return {"half_even": half_even, "half_away": half_away,
            "half_up": half_up}[mode](m * acc)


def accumulate(d):
    """acc[n][oc][o...] of section 11.1, as an object array of ints."""
    R = int(d["rank"][0])
    N, C_in, C_out, G = (int(d[k][0]) for k in ("batch", "ci", "co", "groups"))
    L, K, S, D = (ints(d, k) for k in ("in", "kernel", "stride", "dilation"))
    Pb, Pe, A = (ints(d, k) for k in ("pad_begin", "pad_end", "out_pad"))
    O = [(L[a] - 1) * S[a] - Pb[a] - Pe[a] + D[a] * (K[a] - 1) + A[a] + 1
         for a in range(R)]
    Cg, Mg = C_in // G, C_out // G
    x = np.array(ints(d, "x"), dtype=object).reshape([N, C_in] + L)
    w = np.array(ints(d, "w"), dtype=object).reshape([C_in, Mg] + K)
    zp_x, zp_w = int(d["zp_x"][0]), int(d["zp_w"][0])
    bias = [0] * C_out if d["bias"][0] == "none" else ints(d, "bias")
    acc = np.zeros([N, C_out] + O, dtype=object)
    for n in range(N):
        for g in range(G):
            for m in range(Mg):
                oc = g * Mg + m
                acc[n, oc][...] = bias[oc]
                for c in range(Cg):
                    for k in np.ndindex(*K):
                        for i in np.ndindex(*L):
                            o = tuple(i[a] * S[a] + k[a] * D[a] - Pb[a]
                                      for a in range(R))
                            if all(0 <= o[a] < O[a] for a in range(R)):
                                acc[(n, oc) + o] += ((x[(n, g * Cg + c) + i] - zp_x)
                                                     * (w[(g * Cg + c, m) + k] - zp_w))
    return acc


def solve(d):
    acc = accumulate(d)
    lo, hi = RANGE[d["y_dtype"][0]]
    zp_y = int(d["zp_y"][0])
    out = []
    for idx in np.ndindex(*acc.shape):
        a = int(acc[idx])
        if d["y_dtype"][0] == "s32":
            r = a
        else:
            r = requantize(d, idx[1], a)
            if r is None:
                return "invalid acc %d leaves int32 after the left shift" % a
        out.append(str(min(max(zp_y + r, lo), hi)))
    return "y " + " ".join(out)


def main(solver=solve, doc=__doc__):
    """Reads PROBLEMS, writes OUT with solver's line for each."""
    if len(sys.argv) != 3:
        print(doc)
        return 2
    with open(sys.argv[1]) as f:
        blocks = [b for b in f.read().split("---\n") if b.strip()]
    with open(sys.argv[2], "w") as f:
        for b in blocks:
            f.write(solver(parse(b)) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
