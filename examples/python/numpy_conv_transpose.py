"""Transposed convolution in plain numpy, the definition of specification
section 2 written as loops over the kernel taps: x (N, C_in, spatial),
w (C_in, C_out/G, kernel), bias (C_out) or None.  Float cases only.

flip_kernel=True is a seeded fault (the taps read in reverse, the
gradient-of-convolution view): iohw's judge names it "kernel flipped".
swap_io=True is another (the I/O exchange: w's buffer read as
(C_out, C_in/G, kernel), the TVM layout bug): "weight I and O exchanged".
"""
import itertools

import numpy as np


def _read_as_oi(w, cin, cout, groups):
    """The weights a kernel uses when it reads w's buffer as
    (C_out, C_in/G, kernel): per group, I and O exchanged."""
    cg, mg = cin // groups, cout // groups
    wo = w.reshape((cout, cg) + w.shape[2:])
    eff = np.empty_like(w)
    for g in range(groups):
        eff[g * cg:(g + 1) * cg] = wo[g * mg:(g + 1) * mg].swapaxes(0, 1)
    return eff


def conv_transpose(x, w, bias, stride, dilation, pad_begin, pad_end,
                   output_padding, groups, out_size, flip_kernel=False,
                   swap_io=False):
    rank = x.ndim - 2
    n, cin = x.shape[:2]
    mg = w.shape[1]
    cout = mg * groups
    cg = cin // groups
    acc = np.float64
    y = np.zeros((n, cout) + tuple(out_size), dtype=acc)
    xs = x.astype(acc)
    ws = w.astype(acc)
    if swap_io:
        ws = _read_as_oi(ws, cin, cout, groups)
    if flip_kernel:
        ws = ws[(slice(None), slice(None)) + (slice(None, None, -1),) * rank]
    for g in range(groups):
        xg = xs[:, g * cg:(g + 1) * cg]
        wg = ws[g * cg:(g + 1) * cg]
        for k in itertools.product(*[range(s) for s in w.shape[2:]]):
            # y[o] += x[i] * w[k] where o = i * s + k * d - pad_begin
            contrib = np.einsum("nc...,cm->nm...", xg, wg[(Ellipsis,) + k])
            dst, src = [], []
            for a in range(rank):
                off = k[a] * dilation[a] - pad_begin[a]
                i = np.arange(x.shape[2 + a])
                o = i * stride[a] + off
                ok = (o >= 0) & (o < out_size[a])
                dst.append(o[ok])
                src.append(i[ok])
            if any(len(d) == 0 for d in dst):
                continue
            sel = contrib[np.ix_(range(n), range(mg), *src)]
            view = y[:, g * mg:(g + 1) * mg]
            view[np.ix_(range(n), range(mg), *dst)] += sel
    if bias is not None:
        y += bias.astype(acc).reshape((1, cout) + (1,) * rank)
    return y.astype(x.dtype)
