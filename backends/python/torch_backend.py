#!/usr/bin/python3
"""PyTorch behind iohw's exec protocol (docs/EXEC_PROTOCOL.md).

    torch_backend.py --describe                its name, version, protocols
    torch_backend.py --serve                   protocol 2: serve requests on
                                               stdin/stdout until end of file
    torch_backend.py --supports IN.h5 OUT.h5   protocol 1: answer whether the
                                               case's class is computed
    torch_backend.py IN.h5 OUT.h5              protocol 1: compute y into
                                               OUT.h5

Use it through the exec backend:

    IOHW_EXEC_COMMAND="/usr/bin/python3 backends/python/torch_backend.py" \
        iohw run --backend build/backends/libiohw_exec.so SUITE

It needs h5py, numpy and torch (Debian: python3-h5py, python3-torch, for
/usr/bin/python3).  The tensors are read in their layouts, brought to
PyTorch's order with numpy transposes (x to N, C, spatial; w to I, O,
spatial, merging G and I when the layout has a G axis), computed with
torch.nn.functional.conv_transpose{1,2,3}d and written back in the case's
data layout.  PyTorch pads symmetrically and limits output_padding to below
max(stride, dilation); per axis, with p = min(pad_begin, pad_end):

  native:  padding p, output_padding A' = max(0, A - (pad_end - p)), and y
           is torch's output cropped from pad_begin - p on (exact);
  beyond:  when A' >= max(stride, dilation): padding 0, output_padding 0
           give the full output F; y[o] = F[o + pad_begin] where that
           exists, bias (or 0) elsewhere - positions no term reaches.

dtypes: f32 and f64; f16 and bf16 only when this torch computes them on
the CPU (asked with a tiny problem in the --supports query).

Backward cases (specification section 13; --describe opts in with
directions=fwd bwd_d bwd_w) are computed by torch_backward.py beside this
file with torch.autograd through the same conv_transpose call: OUT.h5 gets
dx, or dw and (with bias) db, in the case's layouts.

Quantized cases (s8 and u8 x, the specification section 11; --describe
says quantized=1): every one is claimed and computed without torch, by
quant_plain.py beside this file, a plain numpy implementation of the
section in exact integers (every rounding mode, gemmlowp's multiplier and
shift included).  IN.h5 carries the quantization attributes (w_dtype,
y_dtype, zp_x, zp_w, zp_y, rounding, m_form, per_channel, s_x, s_y) and the
requant datasets (s_w, or multiplier and shift); y is written as int8,
uint8 or int32.  IOHW_EXAMPLE_QUANT_FAULT=zp_x makes it compute as if x's
zero point were 0: a seeded fault for the tests, which iohw run must FAIL
and diagnose ("x's zero point not subtracted").

The tensor torch returns must have the shape PyTorch documents for
ConvTranspose ((in - 1) * stride - 2 * padding + dilation * (kernel - 1) +
output_padding + 1 per axis): anything else is an error ("torch returned
[..] where [..] is right"), never cropped into y.  On CPUs with AVX-512
torch 1.13 sends bf16 conv_transpose to mkldnn's forward convolution
(pytorch/pytorch#92530, fixed in PyTorch 2.0), which errors or returns
such a shape.  IOHW_TORCH_MKLDNN=0 turns torch.backends.mkldnn off, so
that torch picks the same kernels on every x86-64 CPU (the tests set it).

Any exception (from torch or from reading the case) ends the program with
status 1 and one line on standard error naming torch's version and the
error: the exec protocol's way of reporting a failure.  Under --serve
(protocol 2, which the backend picks from the --describe answer) torch is
imported once, the same line is the reply "error" and the program serves
on; what torch prints on stdout goes to stderr, leaving stdout to the
protocol.
"""
import os
import struct
import sys

SPATIAL = {1: "W", 2: "HW", 3: "DHW"}


def read_string(attrs, name):
    v = attrs[name]
    if isinstance(v, bytes):
        return v.decode("ascii")
    if hasattr(v, "item"):
        v = v.item()
        if isinstance(v, bytes):
            return v.decode("ascii")
    return str(v)


def read_case(path):
    """The only case of IN.h5: (problem dict, group name, h5py file)."""
    import h5py
    f = h5py.File(path, "r")
    ids = list(f["cases"].keys())
    if len(ids) != 1:
        raise ValueError("%s holds %d cases; the exec protocol sends one"
                         % (path, len(ids)))
    g = f["cases"][ids[0]]
    a = g.attrs
    rank = int(a["rank"])
    prob = {
        "direction": int(a["direction"]) if "direction" in a else 0,
        "rank": rank,
        "groups": int(a["groups"]),
        "in_channels": int(a["in_channels"]),
        "out_channels": int(a["out_channels"]),
        "has_bias": int(a["has_bias"]),
        "dtype": read_string(a, "dtype"),
        "data_layout": read_string(a, "data_layout"),
        "weight_layout": read_string(a, "weight_layout"),
    }
    for key in ("in_size", "kernel", "stride", "dilation", "pad_begin",
                "pad_end", "output_padding", "out_size"):
        prob[key] = [int(v) for v in a[key]]
    if prob["dtype"] in ("s8", "u8"):
        prob["quant"] = read_quant(a, g)
    return prob, g, f


def read_quant(a, g):
    """The quantization block of a quantized case (specification section
    11.4): attributes and requant datasets."""
    q = {"w_dtype": read_string(a, "w_dtype"),
         "y_dtype": read_string(a, "y_dtype")}
    for key in ("zp_x", "zp_w", "zp_y"):
        q[key] = int(a[key])
    if os.environ.get("IOHW_EXAMPLE_QUANT_FAULT") == "zp_x":
        q["zp_x"] = 0
    if q["y_dtype"] == "s32":
        return q
    q["rounding"] = read_string(a, "rounding")
    q["m_form"] = read_string(a, "m_form")
    q["per_channel"] = int(a["per_channel"])
    if q["m_form"] == "scales":
        q["s_x"], q["s_y"] = float(a["s_x"]), float(a["s_y"])
        q["s_w"] = [float(v) for v in g["s_w"][()]]
    else:
        q["multiplier"] = [int(v) for v in g["multiplier"][()]]
        q["shift"] = [int(v) for v in g["shift"][()]]
    return q


def torch_dtype(torch, name):
    return {"f32": torch.float32, "f64": torch.float64,
            "f16": torch.float16, "bf16": torch.bfloat16}[name]


def import_torch():
    """torch, with mkldnn off when IOHW_TORCH_MKLDNN=0."""
    import torch
    if os.environ.get("IOHW_TORCH_MKLDNN") == "0":
        torch.backends.mkldnn.enabled = False
    return torch


class ShapeError(Exception):
    pass


def check_shape(full, prob, n, padding, output_padding):
    """Raises ShapeError unless full has PyTorch's documented shape for
    these arguments."""
    want = [n, prob["out_channels"]]
    for a in range(prob["rank"]):
        want.append((prob["in_size"][a] - 1) * prob["stride"][a] -
                    2 * padding[a] +
                    prob["dilation"][a] * (prob["kernel"][a] - 1) +
                    output_padding[a] + 1)
    got = list(full.shape)
    if got != want:
        raise ShapeError("torch returned [%s] where [%s] is right" % (
            ",".join(str(v) for v in got), ",".join(str(v) for v in want)))


def dtype_computed(name, direction=0):
    """None when torch computes conv_transpose in this dtype and direction
    (or quant_plain.py a quantized case), else why."""
    if name in ("f32", "f64", "s8", "u8"):
        return None
    torch = import_torch()
    import torch.nn.functional as F
    dt = torch_dtype(torch, name)
    try:
        x = torch.ones((1, 1, 2), dtype=dt, requires_grad=direction != 0)
        w = torch.ones((1, 1, 2), dtype=dt, requires_grad=direction != 0)
        y = F.conv_transpose1d(x, w)
        if direction != 0:
            torch.autograd.grad(y, [x, w], torch.ones_like(y))
    except Exception as e:  # torch raises RuntimeError; report any
        return "torch %s does not compute %s%s: %s" % (
            torch.__version__, name, " backward" if direction else "",
            str(e).splitlines()[0])
    return None


def to_torch(torch, np, data, dtype):
    """A tensor of the case's dtype from a stored array."""
    if dtype == "bf16":
        bits = np.ascontiguousarray(data).view(np.int16)
        return torch.from_numpy(bits.copy()).view(torch.bfloat16)
    return torch.from_numpy(np.ascontiguousarray(data))


def to_numpy(torch, np, t, dtype):
    if dtype == "bf16":
        return t.contiguous().view(torch.int16).numpy().view(np.uint16)
    return t.contiguous().numpy()


def canonical_inputs(np, prob, g):
    """x as N, C, spatial and w as I (all C_in), O (Mg), spatial."""
    sp = SPATIAL[prob["rank"]]
    Mg = prob["out_channels"] // prob["groups"]
    xl = prob["data_layout"]
    x = np.transpose(g["x"][()], [xl.index(ch) for ch in "NC" + sp])
    wl = prob["weight_layout"]
    if "G" in wl:
        w = np.transpose(g["w"][()], [wl.index(ch) for ch in "GIO" + sp])
        w = w.reshape((prob["in_channels"], Mg) + tuple(prob["kernel"]))
    else:
        w = np.transpose(g["w"][()], [wl.index(ch) for ch in "IO" + sp])
    return x, w


def to_data_layout(np, prob, y):
    """y (N, C, spatial) in the case's data layout."""
    canon = "NC" + SPATIAL[prob["rank"]]
    return np.ascontiguousarray(np.transpose(y, [canon.index(ch)
                                                 for ch in prob["data_layout"]]))


def compute_quant(prob, g):
    """A quantized case's y, by quant_plain.py (no torch)."""
    import numpy as np
    import quant_plain
    x, w = canonical_inputs(np, prob, g)
    bias = g["bias"][()] if prob["has_bias"] else None
    y = quant_plain.conv_transpose_quant(x, w, bias, prob, prob["quant"])
    return to_data_layout(np, prob, y)


def torch_padding(prob):
    """Symmetric padding, an output_padding torch accepts and where y
    starts in torch's output, per axis (see the top)."""
    P, A, start = [], [], []
    for a in range(prob["rank"]):
        pb, pe = prob["pad_begin"][a], prob["pad_end"][a]
        s, d = prob["stride"][a], prob["dilation"][a]
        p = min(pb, pe)
        op = max(0, prob["output_padding"][a] - (pe - p))
        if op >= max(s, d):
            p, op = 0, 0
        P.append(p)
        A.append(op)
        start.append(pb - p)
    return P, A, start


def compute(prob, g):
    if prob["direction"] != 0:
        import torch_backward
        return torch_backward.compute(prob, g, import_torch())
    if "quant" in prob:
        return compute_quant(prob, g)
    import numpy as np
    torch = import_torch()
    import torch.nn.functional as F
    torch.set_num_threads(1)

    R = prob["rank"]
    G = prob["groups"]
    dt = prob["dtype"]
    x, w = canonical_inputs(np, prob, g)
    tx = to_torch(torch, np, x, dt)
    tw = to_torch(torch, np, w, dt)
    tb = to_torch(torch, np, g["bias"][()], dt) if prob["has_bias"] else None

    P, A, start = torch_padding(prob)
    conv = {1: F.conv_transpose1d, 2: F.conv_transpose2d,
            3: F.conv_transpose3d}[R]
    full = conv(tx, tw, tb, stride=prob["stride"], padding=P,
                output_padding=A, groups=G, dilation=prob["dilation"])
    check_shape(full, prob, tx.shape[0], P, A)

    # Crop, and beyond the limit extend with bias, into y (N, C, spatial).
    shape = [full.shape[0], prob["out_channels"]] + prob["out_size"]
    if tb is not None:
        y = tb.view([1, -1] + [1] * R).expand(shape).clone()
    else:
        y = torch.zeros(shape, dtype=full.dtype)
    src, dst = full, y
    for a in range(R):
        n = max(0, min(prob["out_size"][a], full.shape[2 + a] - start[a]))
        src = src.narrow(2 + a, start[a], n)
        dst = dst.narrow(2 + a, 0, n)
    dst.copy_(src)

    return to_data_layout(np, prob, to_numpy(torch, np, y, dt))


def main(argv):
    args = argv[1:]
    if args == ["--describe"]:
        sys.stdout.write(describe())
        return 0
    if args == ["--serve"]:
        return serve(os.path.basename(argv[0]))
    query = bool(args) and args[0] == "--supports"
    if query:
        args = args[1:]
    if len(args) != 2:
        sys.stderr.write("usage: %s --describe | --serve | [--supports] "
                         "IN.h5 OUT.h5\n" % argv[0])
        return 2
    try:
        answer(query, args[0], args[1])
    except Exception as e:  # the library's error, reported, not a traceback
        sys.stderr.write(one_line(os.path.basename(argv[0]), e) + "\n")
        return 1
    return 0


def one_line(prog, e):
    """The program, torch's version and the exception, on one line."""
    lines = str(e).strip().splitlines()
    return "%s: %s%s: %s" % (prog, torch_version(), type(e).__name__,
                             lines[0] if lines else "(no message)")


def describe():
    """The --describe answer: key=value lines (no torch import needed)."""
    try:
        from importlib.metadata import version
        v = "torch " + version("torch")
    except Exception:  # no metadata: ask torch itself
        v = "torch " + import_torch().__version__
    return ("name=torch_backend.py\nversion=%s\nprotocols=1 2\nquantized=1\n"
            "directions=fwd bwd_d bwd_w\n" % v)


def read_message(f):
    """One request (a uint32 length, little-endian, then text), or None at
    end of file."""
    head = f.read(4)
    if len(head) < 4:
        return None
    (n,) = struct.unpack("<I", head)
    body = f.read(n)
    return body.decode() if len(body) == n else None


def send_message(f, text):
    data = text.encode()
    f.write(struct.pack("<I", len(data)) + data)
    f.flush()


def serve(prog):
    """Protocol 2: requests on stdin, replies on stdout, until end of file."""
    # Our replies get the real stdout; anything else printed goes to stderr.
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    inp = sys.stdin.buffer
    import_torch()
    while True:
        req = read_message(inp)
        if req is None:
            return 0
        words = req.split("\n")
        try:
            if words[0] == "describe":
                reply = "ok\n" + describe()
            elif words[0] in ("supports", "run") and len(words) == 3:
                reply = serve_case(words[0] == "supports", words[1], words[2])
            else:
                reply = "error\nunknown request %r" % words[0]
        except Exception as e:  # reported in the reply; we serve on
            reply = "error\n" + one_line(prog, e)
        send_message(out, reply)


def serve_case(query, in_path, out_path):
    """The reply to a supports or run request."""
    if query:
        prob, g, f = read_case(in_path)
        f.close()
        why = dtype_computed(prob["dtype"], prob["direction"])
        return "ok" if why is None else "unsupported\n" + why
    answer(False, in_path, out_path)
    return "ok"


def torch_version():
    """"torch VERSION: " when torch is loaded, else ""."""
    t = sys.modules.get("torch")
    return "torch %s: " % t.__version__ if t is not None else ""


def answer(query, in_path, out_path):
    """Answers a --supports query or computes y; raises on any failure."""
    import h5py
    prob, g, f = read_case(in_path)
    try:
        if query:
            why = dtype_computed(prob["dtype"], prob["direction"])
            with h5py.File(out_path, "w") as out:
                if why is not None:
                    out.attrs["unsupported"] = why
            return
        y = compute(prob, g)
    finally:
        f.close()
    outputs = y if isinstance(y, list) else [("y", y)]
    with h5py.File(out_path, "w") as out:
        for name, v in outputs:
            d = out.create_dataset(name, data=v)
            if prob["dtype"] == "bf16":
                d.attrs["encoding"] = "bf16"


if __name__ == "__main__":
    sys.exit(main(sys.argv))
