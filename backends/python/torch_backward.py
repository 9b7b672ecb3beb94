"""The backward directions (specification section 13) for torch_backend.py.

The forward call is torch_backend.py's: conv_transpose{1,2,3}d with
symmetric padding P, an output_padding A torch accepts, and y cropped from
`start` on (or, beyond torch's limit, padding 0 and y[o] = F[o + pad_begin]
where that exists).  The gradient is taken through that same call with
torch.autograd.grad: dy lands where y came from in torch's output F (dF is
0 elsewhere; a y position outside F was bias alone and reaches no x or w),
so

    BWD_D  dx = dL/dx of F   (torch computes it as a convolution of dF)
    BWD_W  dw = dL/dw of F,  db = dy summed over N and the spatial axes
           (every y position holds the bias once, inside F or not).

Tensors are read from the case in its layouts (dy and dx: data layout,
C = C_out and C_in; dw: weight layout, G merged into I as in the forward
direction) and written back in them.
"""
import numpy as np

import torch_backend as tb


def canonical_data(prob, v):
    """A data-layout tensor as N, C, spatial."""
    xl = prob["data_layout"]
    return np.transpose(v, [xl.index(ch) for ch in "NC" + tb.SPATIAL[prob["rank"]]])


def canonical_weight(prob, v):
    """A weight-layout tensor as I (all C_in), O (Mg), spatial."""
    wl, sp = prob["weight_layout"], tb.SPATIAL[prob["rank"]]
    if "G" not in wl:
        return np.transpose(v, [wl.index(ch) for ch in "IO" + sp])
    v = np.transpose(v, [wl.index(ch) for ch in "GIO" + sp])
    return v.reshape((prob["in_channels"], v.shape[2]) + tuple(prob["kernel"]))


def to_weight_layout(prob, w):
    """w (I, O, spatial) in the case's weight layout."""
    wl, sp = prob["weight_layout"], tb.SPATIAL[prob["rank"]]
    if "G" in wl:
        G = prob["groups"]
        w = w.reshape((G, prob["in_channels"] // G) + w.shape[1:])
        canon = "GIO" + sp
    else:
        canon = "IO" + sp
    return np.ascontiguousarray(np.transpose(w, [canon.index(ch) for ch in wl]))


def grad_of_full(torch, full, tdy, prob, start):
    """dF: dy where y was cropped from F, 0 elsewhere."""
    dfull = torch.zeros_like(full)
    src, dst = tdy, dfull
    for a in range(prob["rank"]):
        n = max(0, min(prob["out_size"][a], full.shape[2 + a] - start[a]))
        src = src.narrow(2 + a, 0, n)
        dst = dst.narrow(2 + a, start[a], n)
    dst.copy_(src)
    return dfull


def compute(prob, g, torch):
    """[("dx", dx)] or [("dw", dw)] (+ [("db", db)]) in the case's layouts."""
    import torch.nn.functional as F
    torch.set_num_threads(1)
    R, dt = prob["rank"], prob["dtype"]
    dy = canonical_data(prob, g["dy"][()])
    tdy = tb.to_torch(torch, np, dy, dt)
    N = dy.shape[0]
    if prob["direction"] == 1:
        tw = tb.to_torch(torch, np, canonical_weight(prob, g["w"][()]), dt)
        tx = torch.zeros([N, prob["in_channels"]] + prob["in_size"],
                         dtype=tw.dtype, requires_grad=True)
    else:
        tx = tb.to_torch(torch, np, canonical_data(prob, g["x"][()]), dt)
        Mg = prob["out_channels"] // prob["groups"]
        tw = torch.zeros([prob["in_channels"], Mg] + prob["kernel"],
                         dtype=tx.dtype, requires_grad=True)

    P, A, start = tb.torch_padding(prob)
    conv = {1: F.conv_transpose1d, 2: F.conv_transpose2d,
            3: F.conv_transpose3d}[R]
    full = conv(tx, tw, None, stride=prob["stride"], padding=P,
                output_padding=A, groups=prob["groups"],
                dilation=prob["dilation"])
    tb.check_shape(full, prob, N, P, A)
    dfull = grad_of_full(torch, full, tdy, prob, start)

    if prob["direction"] == 1:
        (dx,) = torch.autograd.grad(full, [tx], dfull)
        return [("dx", tb.to_data_layout(np, prob, tb.to_numpy(torch, np, dx, dt)))]
    (dw,) = torch.autograd.grad(full, [tw], dfull)
    out = [("dw", to_weight_layout(prob, tb.to_numpy(torch, np, dw, dt)))]
    if prob["has_bias"]:
        db = tdy.sum(dim=[0] + list(range(2, 2 + R)))
        out.append(("db", np.ascontiguousarray(tb.to_numpy(torch, np, db, dt))))
    return out
