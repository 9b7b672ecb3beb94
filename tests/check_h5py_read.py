#!/usr/bin/python3
"""Reads every dataset of every case file of a suite with plain h5py (no
filter plugin) and prints one line per dataset:

    FILE CASE DATASET CHECKSUM

CHECKSUM is the sum over the dataset's bytes b[i] * (i mod 251 + 1), modulo
2^64, so a test can compare it with what iohw's own reader gives.

A backward case (specification section 13: the int32 attribute `direction`,
1 BWD_D or 2 BWD_W) is read the same way, and its datasets are checked to be
its direction's: dy, w, dx, dx_f64, dx_err_bound (BWD_D); x, dy, dw, dw_f64,
dw_err_bound and, with has_bias, db, db_f64, db_err_bound (BWD_W); none of
y, y_f64, err_bound, bias.  A case that breaks this is printed as
"FILE CASE: ..." on stderr and the exit status is 1.

Usage: /usr/bin/python3 tests/check_h5py_read.py SUITE_DIR
Exit status 0 when every dataset was read, 1 otherwise (the error printed).
"""
import os
import sys

import h5py
import numpy as np


def checksum(a):
    b = np.frombuffer(np.ascontiguousarray(a).tobytes(), dtype=np.uint8)
    weight = np.arange(b.size, dtype=np.uint64) % 251 + 1
    return int(np.sum(b.astype(np.uint64) * weight, dtype=np.uint64))


BACKWARD = {
    1: ["dy", "dx", "dx_err_bound", "dx_f64", "w"],
    2: ["dw", "dw_err_bound", "dw_f64", "dy", "x"],
}


def backward_problem(g):
    """What is wrong with the backward case g, or None (also for forward)."""
    if "direction" not in g.attrs:
        return None
    d = int(g.attrs["direction"])
    if g.attrs["direction"].dtype != np.int32 or d not in BACKWARD:
        return "attribute direction is %r, not an int32 1 or 2" % (d,)
    want = list(BACKWARD[d])
    if d == 2 and int(g.attrs["has_bias"]) == 1:
        want += ["db", "db_err_bound", "db_f64"]
    have = sorted(g)
    if have != sorted(want):
        return "datasets %s, but direction %d needs %s" % (have, d, sorted(want))
    return None


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    top = argv[1]
    bad = 0
    for name in sorted(os.listdir(top)):
        if not name.endswith(".h5"):
            continue
        with h5py.File(os.path.join(top, name), "r") as f:
            for cid in sorted(f["cases"]):
                g = f["cases"][cid]
                for ds in sorted(g):
                    print(name, cid, ds, checksum(g[ds][()]))
                why = backward_problem(g)
                if why is not None:
                    print("%s %s: %s" % (name, cid, why), file=sys.stderr)
                    bad = 1
    return bad


if __name__ == "__main__":
    sys.exit(main(sys.argv))
