"""iohw.check: the verdict of the C judge (`iohw check`) on an output."""
import json
import os
import tempfile

import h5py
import numpy as np

from . import program


class Verdict:
    """The judge's result: status (PASS, FAIL, ERROR, UNSUPPORTED ...),
    message, diagnosis, worst_ratio (worst error in u * err_bound),
    mismatches, elements, points (the first mismatches: index, coord
    [n, c, d, h, w], expected, got, bound), repro (the `iohw run` line) and
    block (the failure block `iohw run` prints)."""

    def __init__(self, fields):
        self.fields = fields
        for k, v in fields.items():
            setattr(self, k, v)

    @property
    def ok(self):
        return self.status == "PASS"

    def __bool__(self):
        return self.ok

    def __repr__(self):
        return "<iohw.Verdict %s %s>" % (self.status, self.case_id)


def answer_arrays(case, y, layout="strict"):
    """{dataset: array} of an answer for case: y (forward), dx, or dw and
    db (a dict, or a (dw, db) tuple), each cast to the stored type and in
    the case's layouts (layout="strict": y given in strict order)."""
    names = case.output_names
    if isinstance(y, dict):
        vals = [y[n] for n in names]
    elif isinstance(y, (tuple, list)) and len(names) > 1:
        vals = list(y)
    else:
        vals = [y]
    if len(vals) != len(names):
        raise ValueError("case %s wants %s, got %d arrays"
                         % (case.id, " and ".join(names), len(vals)))
    out = {}
    for name, v in zip(names, vals):
        if v is None:
            raise ValueError("case %s: %s is None (an exec program's case "
                             "holds only the inputs)" % (case.id, name))
        v = np.asarray(v)
        if layout == "strict" and name in ("y", "dx"):
            v = case.from_strict_data(v)
        elif layout == "strict" and name == "dw":
            v = case.from_strict_weight(v)
        stored = case.output_dtype
        if case.dtype == "bf16" and v.dtype != np.uint16:
            v = to_bf16_bits(v)
        elif v.dtype != stored:
            v = v.astype(stored)
        out[name] = np.ascontiguousarray(v)
    return out


def to_bf16_bits(a):
    """float values as bfloat16 bit patterns (uint16), rounded to nearest
    even."""
    b = np.asarray(a, dtype=np.float32).view(np.uint32).astype(np.uint64)
    b = (b + 0x7FFF + ((b >> 16) & 1)) >> 16
    return b.astype(np.uint16)


def write_answer(path, case, y, layout="strict"):
    """The exec protocol's OUT.h5 (docs/EXEC_PROTOCOL.md) for case."""
    with h5py.File(path, "w") as f:
        for name, v in answer_arrays(case, y, layout).items():
            d = f.create_dataset(name, data=v)
            if case.dtype == "bf16":
                d.attrs["encoding"] = "bf16"


def check(case, y, layout="strict", backend=None):
    """The verdict of iohw's judge on y, the output computed for case: in
    strict order (N, C, spatial; weight I, O, spatial) or, with
    layout="stored", in the case's layouts.  A backward case takes dx, or
    dw and db."""
    fd, path = tempfile.mkstemp(suffix=".h5", prefix="iohw-answer-")
    os.close(fd)
    try:
        write_answer(path, case, y, layout)
        args = ["check", case.file, "--id", case.id, "--y", path, "--json"]
        if backend:
            args += ["--backend", backend]
        _, out = program.run(args, ok=(0, 1))
    finally:
        os.unlink(path)
    return Verdict(json.loads(out))
