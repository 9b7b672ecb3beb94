#!/usr/bin/python3
"""Reads every dataset of every case file of a suite with plain h5py (no
filter plugin) and prints one line per dataset:

    FILE CASE DATASET CHECKSUM

CHECKSUM is the sum over the dataset's bytes b[i] * (i mod 251 + 1), modulo
2^64, so a test can compare it with what iohw's own reader gives.

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


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    top = argv[1]
    for name in sorted(os.listdir(top)):
        if not name.endswith(".h5"):
            continue
        with h5py.File(os.path.join(top, name), "r") as f:
            for cid in sorted(f["cases"]):
                for ds in sorted(f["cases"][cid]):
                    print(name, cid, ds, checksum(f["cases"][cid][ds][()]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
