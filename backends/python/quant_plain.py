"""Quantized transposed convolution in plain numpy, exactly as the
specification section 11 (docs/SPEC.md) defines it; the quantized half of
torch_backend.py, the exec protocol's Python example.

Written from the specification, not from the C oracle (oracle/quant.c):
the accumulator is an int64 sum of products (|acc| < 2^50, section 11.1)
scattered tap by tap; the requantization R(M * acc) works on the exact
rational v = acc * num / den, with M = num / den from the binary32 scales
(every binary32 value is a fraction exactly) or from the integer
multiplier and shift, in Python integers (numpy object arrays) with floor
division only; gemmlowp's double rounding is TFLite's int32 arithmetic in
int64, where the product of two int32 values cannot overflow.  Nothing is
rounded through a float, so every case of every rounding mode is exact.

The arrays are in canonical order: x [N, C_in, L...], w [C_in, Mg, K...]
(I, O within the group, spatial; the groups' I blocks one after the
other), bias [C_out] or None, y [N, C_out, O...].
"""
from fractions import Fraction

import numpy as np

RANGES = {"s8": (-128, 127), "u8": (0, 255), "s32": (-2 ** 31, 2 ** 31 - 1)}
NUMPY_TYPES = {"s8": np.int8, "u8": np.uint8, "s32": np.int32}


def tap_slices(L, S, D, Pb, O, k):
    """For tap k of one axis: (source slice of i, destination slice of o)
    with o = i * S + k * D - Pb inside [0, O), or None when no i lands."""
    shift = k * D - Pb
    i_lo = max(0, -(shift // S))           # the first i with o >= 0
    i_hi = min(L - 1, (O - 1 - shift) // S)  # the last with o < O
    if i_lo > i_hi:
        return None
    o_lo = i_lo * S + shift
    o_hi = i_hi * S + shift
    return slice(i_lo, i_hi + 1), slice(o_lo, o_hi + 1, S)


def accumulate(x, w, bias, prob, zp_x, zp_w):
    """acc[n, oc, o...] of section 11.1, int64: bias plus the sum over
    every (c, k, i) reaching o of (x - zp_x) * (w - zp_w)."""
    R, G = prob["rank"], prob["groups"]
    N, C_in = x.shape[0], x.shape[1]
    Cg, Mg = C_in // G, w.shape[1]
    K, O = prob["kernel"], prob["out_size"]
    xs = x.astype(np.int64) - zp_x
    ws = w.astype(np.int64) - zp_w
    acc = np.zeros([N, G * Mg] + O, dtype=np.int64)
    for g in range(G):
        xg = xs[:, g * Cg:(g + 1) * Cg]
        for k in np.ndindex(*K):
            # Every input position's contribution through tap k:
            # t[n, m, i...] = sum over c of x[n, c, i...] * w[c, m, k].
            wk = ws[(slice(g * Cg, (g + 1) * Cg), slice(None)) + k]
            t = np.moveaxis(np.tensordot(xg, wk, axes=([1], [0])), -1, 1)
            src, dst = [slice(None)] * 2, [slice(None), slice(g * Mg, (g + 1) * Mg)]
            for a in range(R):
                sl = tap_slices(x.shape[2 + a], prob["stride"][a],
                                prob["dilation"][a], prob["pad_begin"][a],
                                O[a], k[a])
                if sl is None:
                    break
                src.append(sl[0])
                dst.append(sl[1])
            else:
                acc[tuple(dst)] += t[tuple(src)]
    if bias is not None:
        acc += bias.astype(np.int64).reshape([1, -1] + [1] * R)
    return acc


def multipliers(q):
    """M[j] for every requant value j, each an exact Fraction (section
    11.2): s_x * s_w[j] / s_y, or multiplier[j] * 2^(shift[j] - 31)."""
    if q["m_form"] == "scales":
        s_x, s_y = Fraction(float(q["s_x"])), Fraction(float(q["s_y"]))
        return [s_x * Fraction(float(s)) / s_y for s in q["s_w"]]
    return [Fraction(int(m)) * Fraction(2) ** (int(s) - 31)
            for m, s in zip(q["multiplier"], q["shift"])]


def round_half_even(num, den):
    f = num // den
    twice_rem = 2 * (num - f * den)
    return f + ((twice_rem > den) | ((twice_rem == den) & (f % 2 == 1)))


def round_half_away(num, den):
    mag = (2 * abs(num) + den) // (2 * den)
    return np.where(num < 0, -mag, mag)


def round_half_up(num, den):
    return (2 * num + den) // (2 * den)


def gemmlowp(acc, multiplier, shift):
    """TFLite's MultiplyByQuantizedMultiplier (section 11.3) on an int64
    array: SaturatingRoundingDoublingHighMul, then RoundingDivideByPOT."""
    left, right = max(shift, 0), max(-shift, 0)
    if acc.size and (acc.min() < -(2 ** 31 >> left) or
                     acc.max() > (2 ** 31 - 1) >> left):
        raise ValueError("gemmlowp: acc * 2^%d leaves int32 (the case is "
                         "invalid, specification section 11.3)" % left)
    a = acc * (1 << left)
    # The multiplier is in [0, 2^31 - 1], so a = q = -2^31 never occurs.
    p = a * np.int64(multiplier)
    t = p + np.where(p >= 0, 1 << 30, 1 - (1 << 30))
    h = np.where(t >= 0, t >> 31, -((-t) >> 31))
    mask = (1 << right) - 1
    threshold = (mask >> 1) + (h < 0)
    return (h >> right) + ((h & mask) > threshold)


def requantize(acc, q, lo, hi):
    """saturate(zp_y + R(M[oc] * acc), lo, hi) for every output channel,
    saturated in Python integers (R may pass int64 when M is huge)."""
    mode = q["rounding"]
    out = np.empty(acc.shape, dtype=np.int64)
    ms = None if mode == "gemmlowp" else multipliers(q)
    for oc in range(acc.shape[1]):
        j = oc if q["per_channel"] else 0
        if mode == "gemmlowp":
            r = gemmlowp(acc[:, oc], int(q["multiplier"][j]),
                         int(q["shift"][j]))
        else:
            num = acc[:, oc].astype(object) * ms[j].numerator
            fn = {"half_even": round_half_even, "half_away": round_half_away,
                  "half_up": round_half_up}[mode]
            r = fn(num, ms[j].denominator)
        v = np.asarray(r, dtype=object) + q["zp_y"]
        out[:, oc] = np.minimum(np.maximum(v, lo), hi).astype(np.int64)
    return out


def conv_transpose_quant(x, w, bias, prob, q):
    """y [N, C_out, O...] of section 11.1 in q's y type."""
    acc = accumulate(x, w, bias, prob, q["zp_x"], q["zp_w"])
    lo, hi = RANGES[q["y_dtype"]]
    v = np.clip(acc, lo, hi) if q["y_dtype"] == "s32" else requantize(acc, q, lo, hi)
    return v.astype(NUMPY_TYPES[q["y_dtype"]])
