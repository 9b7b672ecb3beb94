"""One case of a case file (docs/SPEC.md, the case file format): its problem
and its tensors, as stored and in strict order (data N, C, spatial; weight
I, O, spatial with I = all input channels)."""
import h5py
import numpy as np

SPATIAL = {1: "W", 2: "HW", 3: "DHW"}
DIRECTIONS = {0: "fwd", 1: "bwd_d", 2: "bwd_w"}
_INTS = ("in_size", "kernel", "stride", "dilation", "pad_begin", "pad_end",
         "output_padding", "out_size")
_QUANT = ("w_dtype", "y_dtype", "zp_x", "zp_w", "zp_y", "rounding", "m_form",
          "per_channel", "s_x", "s_y")


def _value(v):
    if isinstance(v, bytes):
        return v.decode("ascii")
    if isinstance(v, np.ndarray):
        return [_value(e) for e in v.tolist()]
    if isinstance(v, np.generic):
        v = v.item()
        return v.decode("ascii") if isinstance(v, bytes) else v
    return v


def read_problem(g):
    """Every attribute of the case group g as Python values, with
    direction ("fwd", "bwd_d", "bwd_w") and, for a quantized case, quant (a
    dict of its attributes and requant datasets)."""
    p = {k: _value(v) for k, v in g.attrs.items()}
    p["direction"] = DIRECTIONS[int(p.get("direction", 0))]
    if p["dtype"] in ("s8", "u8"):
        q = {k: p[k] for k in _QUANT if k in p}
        for name in ("s_w", "multiplier", "shift"):
            if name in g:
                q[name] = g[name][()]
        p["quant"] = q
    return p


class Case:
    """A case: id, file, problem (dict), descriptor, tags, direction and
    its tensors.  stored[NAME] is a dataset as stored (the case's layouts);
    x, w, bias, dy and expected are in strict order."""

    def __init__(self, path, case_id, group=None):
        self.file = path
        self.id = case_id
        if group is not None:
            self._load(group)

    def _load(self, g):
        self.problem = read_problem(g)
        self.stored = {name: g[name][()] for name in g}

    def __getattr__(self, name):
        # problem and stored are read on first use (a suite lists cheaply)
        if name not in ("problem", "stored"):
            raise AttributeError(name)
        with h5py.File(self.file, "r") as f:
            self._load(f["cases"][self.id])
        return self.__dict__[name]

    def __repr__(self):
        return "<iohw.Case %s (%s)>" % (self.id, self.file)

    # --- the problem ---------------------------------------------------
    descriptor = property(lambda self: self.problem["descriptor"])
    direction = property(lambda self: self.problem["direction"])
    dtype = property(lambda self: self.problem["dtype"])
    rank = property(lambda self: int(self.problem["rank"]))
    quant = property(lambda self: self.problem.get("quant"))

    @property
    def tags(self):
        t = self.problem.get("tags", "")
        return [s for s in t.split(",") if s]

    @property
    def attrs(self):
        """The operator's attributes (specification section 2): stride,
        dilation, pad_begin, pad_end, output_padding, groups, out_size."""
        p = self.problem
        return {"stride": list(p["stride"]), "dilation": list(p["dilation"]),
                "pad_begin": list(p["pad_begin"]),
                "pad_end": list(p["pad_end"]),
                "output_padding": list(p["output_padding"]),
                "groups": int(p["groups"]), "out_size": list(p["out_size"])}

    # --- layouts -------------------------------------------------------
    def _data_axes(self):
        return "NC" + SPATIAL[self.rank]

    def to_strict_data(self, a):
        """A data-layout array (x, y, dy, dx) as N, C, spatial."""
        xl = self.problem["data_layout"]
        return np.transpose(a, [xl.index(ch) for ch in self._data_axes()])

    def from_strict_data(self, a):
        """An N, C, spatial array in the case's data layout."""
        canon = self._data_axes()
        return np.ascontiguousarray(np.transpose(
            a, [canon.index(ch) for ch in self.problem["data_layout"]]))

    def to_strict_weight(self, a):
        """A weight-layout array as I (all C_in, group-major), O (per
        group), spatial."""
        p, sp = self.problem, SPATIAL[self.rank]
        wl = p["weight_layout"]
        if "G" not in wl:
            return np.transpose(a, [wl.index(ch) for ch in "IO" + sp])
        t = np.transpose(a, [wl.index(ch) for ch in "GIO" + sp])
        mg = int(p["out_channels"]) // int(p["groups"])
        return t.reshape((int(p["in_channels"]), mg) + tuple(p["kernel"]))

    def from_strict_weight(self, a):
        """An I, O, spatial weight array in the case's weight layout."""
        p, sp = self.problem, SPATIAL[self.rank]
        wl = p["weight_layout"]
        if "G" in wl:
            g = int(p["groups"])
            a = np.reshape(a, (g, a.shape[0] // g) + a.shape[1:])
            src = "GIO" + sp
        else:
            src = "IO" + sp
        return np.ascontiguousarray(np.transpose(
            a, [src.index(ch) for ch in wl]))

    # --- tensors in strict order -------------------------------------
    def _get(self, name, kind):
        if name not in self.stored:
            return None
        a = self.stored[name]
        if kind == "data":
            return self.to_strict_data(a)
        return self.to_strict_weight(a) if kind == "weight" else a

    x = property(lambda self: self._get("x", "data"))
    w = property(lambda self: self._get("w", "weight"))
    bias = property(lambda self: self._get("bias", "vector"))
    dy = property(lambda self: self._get("dy", "data"))

    @property
    def output_names(self):
        """The datasets the direction computes: y; dx; dw (and db)."""
        d = self.direction
        if d == "bwd_d":
            return ["dx"]
        if d == "bwd_w":
            return ["dw", "db"] if int(self.problem["has_bias"]) else ["dw"]
        return ["y"]

    @property
    def output_dtype(self):
        """The numpy type the output is stored in (specification section
        4: bf16 as uint16 bit patterns; a quantized case's y_dtype)."""
        name = self.dtype
        if self.quant is not None and self.direction == "fwd":
            name = self.quant["y_dtype"]
        return np.dtype({"f16": "float16", "bf16": "uint16", "f32": "float32",
                         "f64": "float64", "s8": "int8", "u8": "uint8",
                         "s32": "int32"}[name])

    @property
    def expected(self):
        """The stored output in strict order: y, dx or dw, and for a case
        with a bias gradient (BWD_WB) the pair (dw, db), as iohw.check
        takes an answer."""
        names = self.output_names
        if len(names) == 2:
            return (self._get("dw", "weight"), self._get("db", "vector"))
        kind = "weight" if names[0] == "dw" else "data"
        return self._get(names[0], kind)

    def check(self, y, **kw):
        """iohw.check(self, y): the judge's verdict."""
        from .verdict import check
        return check(self, y, **kw)
