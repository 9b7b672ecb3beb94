#!/usr/bin/python3
"""The backward directions of a transposed convolution (specification
section 13) in plain numpy loops, behind the exec protocol
(docs/EXEC_PROTOCOL.md): an implementation independent of the oracle, for
tests/test_exec_bwd.c.

    bwd_numpy.py [FLAG] --describe             opts in: directions=bwd_d bwd_w
    bwd_numpy.py [FLAG] --supports IN.h5 OUT.h5
    bwd_numpy.py [FLAG] IN.h5 OUT.h5           OUT.h5 gets dx, or dw and db

It computes no forward case (refused with a reason).  With the index
relation i*S + k*D - P_begin = o on every axis (o in [0, O)):

    dx[n, g*Cg + c, i] = sum over m, k of dy[n, g*Mg + m, o] * w[g*Cg + c, m, k]
    dw[g*Cg + c, m, k] = sum over n, i of x[n, g*Cg + c, i] * dy[n, g*Mg + m, o]
    db[g*Mg + m]       = sum over n, o of dy[n, g*Mg + m, o]

computed in float64 and rounded once to the case's dtype.  Flags:

    --dw-oihw     a seeded fault: dw is written with its I and O axes
                  swapped in memory (an OIHW dw where IOHW is asked for),
                  in the shape asked for; iohw run must FAIL it
    --no-opt-in   --describe has no directions= line: the exec backend must
                  refuse every backward case without asking
"""
import itertools
import sys

import h5py
import numpy as np

SPATIAL = {1: "W", 2: "HW", 3: "DHW"}
DIRECTIONS = {0: "fwd", 1: "bwd_d", 2: "bwd_w"}


def text(v):
    if hasattr(v, "item"):
        v = v.item()
    return v.decode("ascii") if isinstance(v, bytes) else str(v)


def read_problem(g):
    a = g.attrs
    p = {"direction": int(a["direction"]) if "direction" in a else 0}
    for key in ("rank", "groups", "in_channels", "out_channels", "has_bias"):
        p[key] = int(a[key])
    for key in ("dtype", "data_layout", "weight_layout"):
        p[key] = text(a[key])
    for key in ("in_size", "kernel", "stride", "dilation", "pad_begin",
                "out_size"):
        p[key] = [int(v) for v in a[key]]
    return p


def load(d, dtype):
    """A stored tensor as float64 (bf16: uint16 bits)."""
    v = d[()]
    if dtype == "bf16":
        v = (v.astype(np.uint32) << 16).view(np.float32)
    return v.astype(np.float64)


def store(v, dtype):
    """float64 values in the stored type of dtype (bf16: the upper half of
    the float32, rounded to nearest even)."""
    if dtype == "bf16":
        bits = v.astype(np.float32).view(np.uint32).astype(np.uint64)
        bits = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
        return bits.astype(np.uint16)
    return v.astype({"f64": np.float64, "f32": np.float32,
                     "f16": np.float16}[dtype])


def data_to_canon(p, v):
    layout = p["data_layout"]
    return np.transpose(v, [layout.index(ch) for ch in "NC" + SPATIAL[p["rank"]]])


def data_from_canon(p, v):
    canon = "NC" + SPATIAL[p["rank"]]
    return np.transpose(v, [canon.index(ch) for ch in p["data_layout"]])


def weight_to_canon(p, v):
    """w as [C_in][Mg][kernel]."""
    layout, sp = p["weight_layout"], SPATIAL[p["rank"]]
    if "G" not in layout:
        return np.transpose(v, [layout.index(ch) for ch in "IO" + sp])
    v = np.transpose(v, [layout.index(ch) for ch in "GIO" + sp])
    return v.reshape((p["in_channels"], v.shape[2]) + tuple(p["kernel"]))


def weight_from_canon(p, v):
    layout, sp = p["weight_layout"], SPATIAL[p["rank"]]
    if "G" not in layout:
        return np.transpose(v, [("IO" + sp).index(ch) for ch in layout])
    G = p["groups"]
    v = v.reshape((G, p["in_channels"] // G) + v.shape[1:])
    return np.transpose(v, [("GIO" + sp).index(ch) for ch in layout])


def pairs(p):
    """Every (kernel tap, input position, output position) the index
    relation joins, per the whole spatial index."""
    R = p["rank"]
    for k in itertools.product(*[range(n) for n in p["kernel"]]):
        for i in itertools.product(*[range(n) for n in p["in_size"]]):
            o = tuple(i[a] * p["stride"][a] + k[a] * p["dilation"][a] -
                      p["pad_begin"][a] for a in range(R))
            if all(0 <= o[a] < p["out_size"][a] for a in range(R)):
                yield k, i, o


def bwd_data(p, dy, w):
    G = p["groups"]
    Cg, Mg = p["in_channels"] // G, p["out_channels"] // G
    dx = np.zeros((dy.shape[0], p["in_channels"]) + tuple(p["in_size"]))
    for k, i, o in pairs(p):
        for g in range(G):
            c, m = slice(g * Cg, (g + 1) * Cg), slice(g * Mg, (g + 1) * Mg)
            dx[(slice(None), c) + i] += dy[(slice(None), m) + o] @ w[(c, slice(None)) + k].T
    return dx


def bwd_weights(p, x, dy):
    G = p["groups"]
    Cg, Mg = p["in_channels"] // G, p["out_channels"] // G
    dw = np.zeros((p["in_channels"], Mg) + tuple(p["kernel"]))
    for k, i, o in pairs(p):
        for g in range(G):
            c, m = slice(g * Cg, (g + 1) * Cg), slice(g * Mg, (g + 1) * Mg)
            dw[(c, slice(None)) + k] += x[(slice(None), c) + i].T @ dy[(slice(None), m) + o]
    db = dy.sum(axis=tuple(a for a in range(dy.ndim) if a != 1))
    return dw, db


def swap_io(p, dw):
    """The seeded fault: dw's I and O axes swapped in memory, in the shape
    asked for."""
    layout = p["weight_layout"]
    order = list(range(dw.ndim))
    a, b = layout.index("I"), layout.index("O")
    order[a], order[b] = b, a
    return np.ascontiguousarray(np.transpose(dw, order)).reshape(dw.shape)


def write(out, name, v, dtype):
    d = out.create_dataset(name, data=np.ascontiguousarray(store(v, dtype)))
    if dtype == "bf16":
        d.attrs["encoding"] = "bf16"


def answer(flags, query, in_path, out_path):
    with h5py.File(in_path, "r") as f:
        ids = list(f["cases"].keys())
        if len(ids) != 1:
            raise ValueError("%s holds %d cases, not 1" % (in_path, len(ids)))
        g = f["cases"][ids[0]]
        p = read_problem(g)
        if p["direction"] == 0:
            with h5py.File(out_path, "w") as out:
                out.attrs["unsupported"] = "bwd_numpy.py computes only the " \
                    "backward directions"
            return
        if query:
            h5py.File(out_path, "w").close()
            return
        dt = p["dtype"]
        dy = data_to_canon(p, load(g["dy"], dt))
        if p["direction"] == 1:
            w = weight_to_canon(p, load(g["w"], dt))
            outputs = [("dx", data_from_canon(p, bwd_data(p, dy, w)))]
        else:
            x = data_to_canon(p, load(g["x"], dt))
            dw, db = bwd_weights(p, x, dy)
            dw = weight_from_canon(p, dw)
            if "--dw-oihw" in flags:
                dw = swap_io(p, dw)
            outputs = [("dw", dw)] + ([("db", db)] if p["has_bias"] else [])
    with h5py.File(out_path, "w") as out:
        for name, v in outputs:
            write(out, name, v, dt)


def main(argv):
    flags = [a for a in argv[1:] if a in ("--dw-oihw", "--no-opt-in")]
    args = [a for a in argv[1:] if a not in flags]
    if args == ["--describe"]:
        sys.stdout.write("name=bwd_numpy.py\nversion=numpy %s\n" % np.__version__)
        if "--no-opt-in" not in flags:
            sys.stdout.write("directions=bwd_d bwd_w\n")
        return 0
    query = bool(args) and args[0] == "--supports"
    if query:
        args = args[1:]
    if len(args) != 2:
        sys.stderr.write("usage: %s [--dw-oihw] [--no-opt-in] --describe | "
                         "[--supports] IN.h5 OUT.h5\n" % argv[0])
        return 2
    try:
        answer(flags, query, args[0], args[1])
    except Exception as e:  # reported on one line: the protocol's failure
        sys.stderr.write("bwd_numpy.py: %s: %s\n" % (type(e).__name__, e))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
