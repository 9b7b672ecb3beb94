#!/usr/bin/python3
"""Checks a sample of a suite's cases against PyTorch, an independent
implementation of transposed convolution.

Usage: /usr/bin/python3 tests/check_torch.py SUITE_DIR [--max N]

For every sampled f32 or f64 case (fills other than `special`, whose NaN and
Inf handling differs between implementations only in ways the specification
does not fix): x and y are brought from the case's data layout to N, C,
spatial; w from its weight layout to PyTorch's (C_in, C_out/G, K...), which
is iohw's strict IOHW; then torch.nn.functional.conv_transpose{1,2,3}d runs
with padding = min(pad_begin, pad_end) per axis, and the result is cropped
at the beginning by pad_begin - min and cut to out_size at the end.
output_padding is passed when PyTorch accepts it (< max(stride, dilation));
otherwise the positions past what PyTorch computed hold the bias alone.

Judgement (specification section 3): exact fills (exact, ties) must equal y
bit for bit; other fills must satisfy |torch - y_f64| <= (terms_max + 2) * u
* err_bound + half an ulp of y, where a NaN y_f64 requires NaN and an
infinite y (the exact value overflowed, or was infinite) requires that
infinity.  Exit status 0 when every sampled case agrees, 1 when
one does not (each disagreement printed), 2 on bad usage.

A backward case (attribute `direction`, specification section 13) is
checked against PyTorch's autograd of the same forward computation: the
sum of dy times the positions PyTorch computed, differentiated by x
(BWD_D: dx) or by w (BWD_W: dw); db is dy summed over the batch and every
output position (positions PyTorch did not compute depend on the bias
alone).  The outputs compared are dx, or dw and db, judged as y is.
"""
import os
import sys

import h5py
import numpy as np
import torch

UNIT = {"f32": 2.0 ** -24, "f64": 2.0 ** -53}
NPTYPE = {"f32": np.float32, "f64": np.float64}


def attr_str(v):
    return v.decode() if isinstance(v, bytes) else str(v)


def to_canonical(a, layout, canon):
    """Transposes array a (axes in `layout` order) to the order `canon`."""
    return np.transpose(a, [layout.index(ch) for ch in canon])


def weight_to_torch(w, layout, rank, groups):
    """w in its layout -> (C_in, C_out/G, K...)."""
    sp = "DHW"[3 - rank:]
    if "G" in layout:
        g = to_canonical(w, layout, "GIO" + sp)  # (G, Cg, Mg, K...)
        return g.reshape((g.shape[0] * g.shape[1],) + g.shape[2:])
    return to_canonical(w, layout, "IO" + sp)


def half_ulp(y, dtype):
    info = np.finfo(NPTYPE[dtype])
    mag = np.abs(y.astype(np.float64))
    mag = np.where(np.isfinite(mag), mag, float(info.max))
    e = np.floor(np.log2(np.maximum(mag, float(info.tiny))))
    return np.ldexp(1.0, (e - (info.nmant + 1)).astype(np.int64))


def judge(cid, name, res, y, y64, eb, fill, dtype, terms):
    """Compares res with a case's output y (y_f64, err_bound)."""
    if fill in ("exact", "ties"):
        bad = np.argwhere(~((res == y) | (np.isnan(res) & np.isnan(y))))
        why = "not bit-equal"
    else:
        tol = (terms + 2) * UNIT[dtype] * eb + half_ulp(y, dtype)
        r64 = res.astype(np.float64)
        with np.errstate(invalid="ignore"):
            ok = np.abs(r64 - y64) <= tol
        ok |= (np.isnan(y64) & np.isnan(r64)) | (np.isinf(y) & (r64 == y))
        bad = np.argwhere(~ok)
        why = "beyond the tolerance"
    if len(bad) > 0:
        i = tuple(bad[0])
        print(f"DISAGREE {cid}: {len(bad)} element(s) of {name} {why}; first at {i}: "
              f"torch {res[i]!r} {name} {y[i]!r} {name}_f64 {y64[i]!r}")
        return False
    return True


def check_backward(g, cid, direction):
    """A backward case against PyTorch's autograd (see the module text)."""
    rank = int(g.attrs["rank"])
    dtype = attr_str(g.attrs["dtype"])
    fill = attr_str(g.attrs["fill"])
    xl = attr_str(g.attrs["data_layout"])
    wl = attr_str(g.attrs["weight_layout"])
    groups = int(g.attrs["groups"])
    stride = [int(v) for v in g.attrs["stride"]]
    dil = [int(v) for v in g.attrs["dilation"]]
    pb = [int(v) for v in g.attrs["pad_begin"]]
    pe = [int(v) for v in g.attrs["pad_end"]]
    op = [int(v) for v in g.attrs["output_padding"]]
    out = [int(v) for v in g.attrs["out_size"]]
    insz = [int(v) for v in g.attrs["in_size"]]
    kern = [int(v) for v in g.attrs["kernel"]]
    n, ci, co = int(g.attrs["batch"]), int(g.attrs["in_channels"]), int(g.attrs["out_channels"])
    terms = int(g.attrs["terms_max"])
    canon = "NC" + "DHW"[3 - rank:]
    npt = NPTYPE[dtype]

    dy = to_canonical(g["dy"][()], xl, canon)
    if direction == 1:
        x = np.zeros([n, ci] + insz, dtype=npt)
        w = weight_to_torch(g["w"][()], wl, rank, groups)
    else:
        x = to_canonical(g["x"][()], xl, canon)
        w = np.zeros([ci, co // groups] + kern, dtype=npt)
    sym = [min(a, b) for a, b in zip(pb, pe)]
    top = [a if a < max(s, d) else 0 for a, s, d in zip(op, stride, dil)]
    fn = {1: torch.nn.functional.conv_transpose1d,
          2: torch.nn.functional.conv_transpose2d,
          3: torch.nn.functional.conv_transpose3d}[rank]
    tx = torch.from_numpy(np.ascontiguousarray(x)).requires_grad_(direction == 1)
    tw = torch.from_numpy(np.ascontiguousarray(w)).requires_grad_(direction == 2)
    r = fn(tx, tw, None, stride=stride, padding=sym, output_padding=top,
           groups=groups, dilation=dil)
    src = [slice(None), slice(None)]
    dst = [slice(None), slice(None)]
    for a in range(rank):
        start = pb[a] - sym[a]
        m = min(out[a], r.shape[2 + a] - start)
        src.append(slice(start, start + m))
        dst.append(slice(0, m))
    r[tuple(src)].backward(torch.from_numpy(np.ascontiguousarray(dy[tuple(dst)])))

    if direction == 1:
        return judge(cid, "dx", tx.grad.numpy(), to_canonical(g["dx"][()], xl, canon),
                     to_canonical(g["dx_f64"][()], xl, canon),
                     to_canonical(g["dx_err_bound"][()], xl, canon), fill, dtype, terms)
    ok = judge(cid, "dw", tw.grad.numpy(), weight_to_torch(g["dw"][()], wl, rank, groups),
               weight_to_torch(g["dw_f64"][()], wl, rank, groups),
               weight_to_torch(g["dw_err_bound"][()], wl, rank, groups), fill, dtype, terms)
    if ok and int(g.attrs["has_bias"]):
        db = torch.from_numpy(np.ascontiguousarray(dy)).sum(
            dim=[0] + list(range(2, 2 + rank))).numpy()
        ok = judge(cid, "db", db, g["db"][()], g["db_f64"][()], g["db_err_bound"][()],
                   fill, dtype, terms)
    return ok


def check_case(g, cid):
    direction = int(g.attrs["direction"]) if "direction" in g.attrs else 0
    if direction != 0:
        return check_backward(g, cid, direction)
    rank = int(g.attrs["rank"])
    dtype = attr_str(g.attrs["dtype"])
    fill = attr_str(g.attrs["fill"])
    xl = attr_str(g.attrs["data_layout"])
    wl = attr_str(g.attrs["weight_layout"])
    groups = int(g.attrs["groups"])
    stride = [int(v) for v in g.attrs["stride"]]
    dil = [int(v) for v in g.attrs["dilation"]]
    pb = [int(v) for v in g.attrs["pad_begin"]]
    pe = [int(v) for v in g.attrs["pad_end"]]
    op = [int(v) for v in g.attrs["output_padding"]]
    out = [int(v) for v in g.attrs["out_size"]]
    terms = int(g.attrs["terms_max"])
    sp = "DHW"[3 - rank:]
    canon = "NC" + sp

    x = to_canonical(g["x"][()], xl, canon)
    w = weight_to_torch(g["w"][()], wl, rank, groups)
    bias = g["bias"][()] if int(g.attrs["has_bias"]) else None
    y = to_canonical(g["y"][()], xl, canon)
    y64 = to_canonical(g["y_f64"][()], xl, canon)
    eb = to_canonical(g["err_bound"][()], xl, canon)

    # PyTorch with symmetric padding, output_padding where it is accepted.
    sym = [min(a, b) for a, b in zip(pb, pe)]
    top = [a if a < max(s, d) else 0 for a, s, d in zip(op, stride, dil)]
    fn = {1: torch.nn.functional.conv_transpose1d,
          2: torch.nn.functional.conv_transpose2d,
          3: torch.nn.functional.conv_transpose3d}[rank]
    tx = torch.from_numpy(np.ascontiguousarray(x))
    tw = torch.from_numpy(np.ascontiguousarray(w))
    tb = torch.from_numpy(np.ascontiguousarray(bias)) if bias is not None else None
    r = fn(tx, tw, tb, stride=stride, padding=sym, output_padding=top,
           groups=groups, dilation=dil).numpy()

    # Crop pad_begin - min at the beginning; positions PyTorch did not
    # compute (output_padding it refused) hold the bias alone.
    res = np.zeros(y.shape, dtype=r.dtype)
    if bias is not None:
        res += bias.reshape((1, -1) + (1,) * rank)
    src = [slice(None), slice(None)]
    dst = [slice(None), slice(None)]
    for a in range(rank):
        start = pb[a] - sym[a]
        n = min(out[a], r.shape[2 + a] - start)
        src.append(slice(start, start + n))
        dst.append(slice(0, n))
    res[tuple(dst)] = r[tuple(src)]

    return judge(cid, "y", res, y, y64, eb, fill, dtype, terms)


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    suite = argv[1]
    limit = int(argv[3]) if len(argv) > 3 and argv[2] == "--max" else 60
    torch.backends.mkldnn.enabled = False
    torch.set_num_threads(1)

    # Sample: every case with a dtype PyTorch computes on the CPU and a fill
    # with defined results, spread evenly over the manifest.
    rows = []
    with open(os.path.join(suite, "manifest.txt")) as f:
        for line in f:
            cid, fname, desc, tags = line.rstrip("\n").split("\t")
            tagset = tags.split(",")
            if ("f32" in tagset or "f64" in tagset) and "fill-special" not in tagset:
                rows.append((cid, fname))
    step = max(1, len(rows) // limit)
    sample = rows[::step][:limit]

    checked = failed = 0
    files = {}
    for cid, fname in sample:
        if fname not in files:
            files[fname] = h5py.File(os.path.join(suite, fname), "r")
        ok = check_case(files[fname]["cases"][cid], cid)
        checked += 1
        failed += 0 if ok else 1
    for f in files.values():
        f.close()
    print(f"torch {torch.__version__}: {checked} cases checked, {failed} disagree")
    return 1 if failed or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
