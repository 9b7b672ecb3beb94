#!/usr/bin/python3
"""PyTorch behind iohw's exec protocol (docs/EXEC_PROTOCOL.md), written on
iohw.serve (python/iohw, docs/PYTHON.md), which reads IN.h5, answers
--describe, --supports and --serve (protocols 1 and 2) and writes OUT.h5:

    IOHW_EXEC_COMMAND="/usr/bin/python3 backends/python/torch_backend.py" \
        iohw run --backend build/backends/libiohw_exec.so SUITE

Float cases: torch.nn.functional.conv_transpose{1,2,3}d on x (N, C,
spatial) and w (I, O, spatial; G merged into I).  PyTorch pads
symmetrically and limits output_padding to below max(stride, dilation);
per axis, with p = min(pad_begin, pad_end):

  native:  padding p, output_padding A' = max(0, A - (pad_end - p)), and y
           is torch's output cropped from pad_begin - p on (exact);
  beyond:  when A' >= max(stride, dilation): padding 0, output_padding 0
           give the full output F; y[o] = F[o + pad_begin] where that
           exists, bias (or 0) elsewhere - positions no term reaches.

f16 and bf16 are claimed only when this torch computes them on the CPU
(a tiny problem, asked in supports).  The tensor torch returns must have
PyTorch's documented ConvTranspose shape, else the case is an error
("torch returned [..] where [..] is right"), never cropped into y (torch
1.13 on AVX-512 sends bf16 to mkldnn, pytorch/pytorch#92530).
IOHW_TORCH_MKLDNN=0 turns torch.backends.mkldnn off (the tests set it).

Backward cases (specification section 13): torch_backward.py beside this
file, torch.autograd through the same call.  Quantized cases (s8 and u8 x,
specification section 11): quant_plain.py beside this file, plain numpy in
exact integers.  IOHW_EXAMPLE_QUANT_FAULT=zp_x computes as if x's zero
point were 0: a seeded fault the tests expect diagnosed ("x's zero point
not subtracted").  An exception is one line on stderr (protocol 1) or the
reply "error" (protocol 2), naming torch's version.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "..", "..", "python")]

import iohw  # noqa: E402  (after the path above)
from iohw.case import SPATIAL  # noqa: E402,F401  (torch_backward uses it)


def problem(case):
    """The problem as torch_backward.py and quant_plain.py take it."""
    p = dict(case.problem)
    p["direction"] = {"fwd": 0, "bwd_d": 1, "bwd_w": 2}[case.direction]
    if "quant" in p:
        q = dict(p["quant"])
        if os.environ.get("IOHW_EXAMPLE_QUANT_FAULT") == "zp_x":
            q["zp_x"] = 0
        for k in ("s_w", "multiplier", "shift"):
            if k in q:
                q[k] = [v.item() for v in q[k]]
        p["quant"] = q
    return p


def import_torch():
    import torch
    if os.environ.get("IOHW_TORCH_MKLDNN") == "0":
        torch.backends.mkldnn.enabled = False
    return torch


def to_torch(torch, np, data, dtype):
    if dtype == "bf16":
        bits = np.ascontiguousarray(data).view(np.int16)
        return torch.from_numpy(bits.copy()).view(torch.bfloat16)
    return torch.from_numpy(np.ascontiguousarray(data))


def to_numpy(torch, np, t, dtype):
    if dtype == "bf16":
        return t.contiguous().view(torch.int16).numpy().view(np.uint16)
    return t.contiguous().numpy()


def to_data_layout(np, prob, y):
    canon = "NC" + SPATIAL[prob["rank"]]
    return np.ascontiguousarray(np.transpose(
        y, [canon.index(ch) for ch in prob["data_layout"]]))


def check_shape(full, prob, n, padding, output_padding):
    want = [n, prob["out_channels"]] + [
        (prob["in_size"][a] - 1) * prob["stride"][a] - 2 * padding[a] +
        prob["dilation"][a] * (prob["kernel"][a] - 1) + output_padding[a] + 1
        for a in range(prob["rank"])]
    if list(full.shape) != want:
        raise ValueError("torch returned [%s] where [%s] is right" % (
            ",".join(str(v) for v in full.shape), ",".join(str(v) for v in want)))


def torch_padding(prob):
    """Symmetric padding, an output_padding torch accepts and where y
    starts in torch's output, per axis (see the top)."""
    P, A, start = [], [], []
    for a in range(prob["rank"]):
        pb, pe = prob["pad_begin"][a], prob["pad_end"][a]
        p = min(pb, pe)
        op = max(0, prob["output_padding"][a] - (pe - p))
        if op >= max(prob["stride"][a], prob["dilation"][a]):
            p, op = 0, 0
        P.append(p)
        A.append(op)
        start.append(pb - p)
    return P, A, start


def supports(case):
    """None when torch computes this dtype and direction, else why."""
    name = case.dtype
    if name in ("f32", "f64", "s8", "u8"):
        return None
    torch = import_torch()
    import torch.nn.functional as F
    dt = {"f16": torch.float16, "bf16": torch.bfloat16}[name]
    grad = case.direction != "fwd"
    try:
        x = torch.ones((1, 1, 2), dtype=dt, requires_grad=grad)
        w = torch.ones((1, 1, 2), dtype=dt, requires_grad=grad)
        y = F.conv_transpose1d(x, w)
        if grad:
            torch.autograd.grad(y, [x, w], torch.ones_like(y))
    except Exception as e:  # torch raises RuntimeError; report any
        return "torch %s does not compute %s%s: %s" % (
            torch.__version__, name, " backward" if grad else "",
            str(e).splitlines()[0])
    return None


def compute(case):
    """y (or dx, or dw and db) in the case's layouts."""
    import numpy as np
    prob, g = problem(case), case.stored
    if case.direction != "fwd":
        import torch_backward
        return dict(torch_backward.compute(prob, g, import_torch()))
    if case.quant is not None:
        import quant_plain
        return to_data_layout(np, prob, quant_plain.conv_transpose_quant(
            case.x, case.w, case.bias, prob, prob["quant"]))
    torch = import_torch()
    import torch.nn.functional as F
    torch.set_num_threads(1)
    R, dt = prob["rank"], prob["dtype"]
    tx = to_torch(torch, np, case.x, dt)
    tw = to_torch(torch, np, case.w, dt)
    tb = to_torch(torch, np, case.bias, dt) if prob["has_bias"] else None
    P, A, start = torch_padding(prob)
    conv = [F.conv_transpose1d, F.conv_transpose2d, F.conv_transpose3d][R - 1]
    full = conv(tx, tw, tb, stride=prob["stride"], padding=P,
                output_padding=A, groups=prob["groups"],
                dilation=prob["dilation"])
    check_shape(full, prob, tx.shape[0], P, A)
    # Crop, and beyond the limit extend with bias, into y (N, C, spatial).
    shape = [full.shape[0], prob["out_channels"]] + prob["out_size"]
    y = (tb.view([1, -1] + [1] * R).expand(shape).clone() if tb is not None
         else torch.zeros(shape, dtype=full.dtype))
    src, dst = full, y
    for a in range(R):
        n = max(0, min(prob["out_size"][a], full.shape[2 + a] - start[a]))
        src, dst = src.narrow(2 + a, start[a], n), dst.narrow(2 + a, 0, n)
    dst.copy_(src)
    return to_data_layout(np, prob, to_numpy(torch, np, y, dt))


def version():
    try:
        from importlib.metadata import version as v
        return "torch " + v("torch")
    except Exception:  # no metadata: ask torch itself
        return "torch " + import_torch().__version__


def error_prefix():
    t = sys.modules.get("torch")
    return "torch %s: " % t.__version__ if t is not None else ""


if __name__ == "__main__":
    iohw.serve(compute, supports=supports, layout="stored",
               error_prefix=error_prefix,
               describe={"name": "torch_backend.py", "version": version(),
                         "protocols": "1 2", "quantized": "1",
                         "directions": "fwd bwd_d bwd_w"})
