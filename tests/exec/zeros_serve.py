#!/usr/bin/python3
"""A protocol 2 program that costs nothing per case, for measuring the exec
backend's own cost per case (docs/EXEC_PROTOCOL.md): it claims every
forward float problem and answers each run request with a y of zeros (so
the cases FAIL; the program never fails a request).

    zeros_serve.py [--describe | --serve]
"""
import struct
import sys

import h5py
import numpy as np


def read_message(f):
    head = f.read(4)
    if len(head) < 4:
        return None
    (n,) = struct.unpack("<I", head)
    return f.read(n).decode()


def send(f, text):
    data = text.encode()
    f.write(struct.pack("<I", len(data)) + data)
    f.flush()


def zeros(in_path, out_path):
    with h5py.File(in_path, "r") as f:
        case = f["cases"][list(f["cases"].keys())[0]]
        y = case["y"]
        attrs = dict(y.attrs)
        shape, dtype = y.shape, y.dtype
    with h5py.File(out_path, "w") as g:
        d = g.create_dataset("y", data=np.zeros(shape, dtype))
        for k, v in attrs.items():
            d.attrs[k] = v


def main(argv):
    if argv[1:] == ["--describe"]:
        sys.stdout.write("name=zeros\nversion=1\nprotocols=1 2\n")
        return 0
    inp, out = sys.stdin.buffer, sys.stdout.buffer
    while True:
        req = read_message(inp)
        if req is None:
            return 0
        words = req.split("\n")
        if words[0] == "describe":
            send(out, "ok\nname=zeros\nversion=1\nprotocols=1 2\n")
        elif words[0] == "supports":
            send(out, "ok")
        else:
            zeros(words[1], words[2])
            send(out, "ok")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
