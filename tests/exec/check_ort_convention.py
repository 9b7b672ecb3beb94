#!/usr/bin/python3
"""Checks that backends/js/ort_backend.js states a case made from ONNX's
convention (the case attributes convention, auto_pad, out_shape of the
specification, section 12) to ONNX Runtime that way, not with the explicit
pads.

    check_ort_convention.py IOHW_BIN PROGRAM DIR

Per axis L=3, K=3, S=2: the uncropped output is 7 and SAME's target L*S is 6,
so ONNX's total padding is 1 and its formula puts it at the end for
SAME_UPPER and at the beginning for SAME_LOWER (onnx/defs/nn/defs.cc; also
output_shape with auto_pad unset).  The case is written with explicit pads
0:1 (SAME_UPPER's), exact fill, and its oracle y; then:
  - auto_pad=same_upper, convention=onnx: y equals the oracle's exactly;
  - auto_pad=same_lower on the same pads: y differs (so the program gave ORT
    auto_pad, not the pads), and equals the oracle of pads 1:0;
  - convention=tf with auto_pad=same_upper: explicit pads (y as the oracle);
  - out_shape 7x7 on the 6x6 case: ORT returns 7x7, the program fails
    naming both shapes (no crop).
Needs h5py and numpy; prints "convention ok" or exits 1 saying what
differs."""
import os
import subprocess
import sys

import h5py
import numpy as np


def gen(iohw, path, desc):
    subprocess.run([iohw, "gen", "-o", path, "--problem", desc], check=True,
                   stdout=subprocess.DEVNULL)


def case_of(f):
    ids = list(f["cases"].keys())
    return f["cases"][ids[0]]


def set_attrs(path, attrs):
    with h5py.File(path, "a") as f:
        g = case_of(f)
        for k in ("auto_pad", "convention", "out_shape"):
            if k in g.attrs:
                del g.attrs[k]
        for k, v in attrs.items():
            g.attrs[k] = np.array(v, dtype=np.int64) if k == "out_shape" else np.bytes_(v)


def run(prog, path, attrs):
    set_attrs(path, attrs)
    out = path + ".out.h5"
    if os.path.exists(out):
        os.remove(out)
    r = subprocess.run(["node", prog, path, out], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("%s %s failed (%d): %s" % (prog, attrs, r.returncode,
                                            r.stdout + r.stderr))
    with h5py.File(out, "r") as f:
        return case_of(f)["y"][()]


def oracle(path):
    with h5py.File(path, "r") as f:
        return case_of(f)["y"][()]


def main():
    iohw, prog, tmp = sys.argv[1:4]
    base = "n=1 ci=2 co=3 in=3x3 k=3 s=2 fill=exact"
    upper = os.path.join(tmp, "ort-conv-upper.h5")
    lower = os.path.join(tmp, "ort-conv-lower.h5")
    gen(iohw, upper, base + " pad=0:1x0:1")
    gen(iohw, lower, base + " pad=1:0x1:0")
    want_upper, want_lower = oracle(upper), oracle(lower)
    if np.array_equal(want_upper, want_lower):
        sys.exit("the two paddings give the same oracle: the check proves nothing")
    checks = [
        ({"convention": "onnx", "auto_pad": "same_upper"}, want_upper),
        ({"convention": "onnx", "auto_pad": "same_lower"}, want_lower),
        ({"convention": "onnx", "out_shape": [6, 6]}, want_lower),
        ({"convention": "tf", "auto_pad": "same_upper"}, want_upper),
    ]
    for attrs, want in checks:
        got = run(prog, upper, attrs)
        if not np.array_equal(got, want):
            sys.exit("%s: y differs from the expected padding's oracle:\n%s\n%s"
                     % (attrs, got.ravel()[:12], want.ravel()[:12]))
    # An output_shape that is not the case's: ORT returns that shape, which
    # the program reports (naming both shapes) instead of cropping it.
    set_attrs(upper, {"convention": "onnx", "out_shape": [7, 7]})
    r = subprocess.run(["node", prog, upper, upper + ".out.h5"],
                       capture_output=True, text=True)
    want = "returned Y of shape [1,3,7,7] where [1,3,6,6] is right"
    if r.returncode != 1 or want not in r.stderr:
        sys.exit("a wrong output shape: status %d, %r (wanted %r)"
                 % (r.returncode, r.stdout + r.stderr, want))
    print("convention ok")


if __name__ == "__main__":
    main()
