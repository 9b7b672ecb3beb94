"""iohw.serve: a Python function as an exec-protocol program
(docs/EXEC_PROTOCOL.md, protocols 1 and 2), so that `iohw run` runs it
isolated, with every tool of the command line.

    # mine.py
    import iohw
    def conv(case):
        return my_conv_transpose(case.x, case.w, case.bias, **case.attrs)
    iohw.serve(conv, describe={"name": "mine", "version": "1.0"})

    IOHW_EXEC_COMMAND="/usr/bin/python3 mine.py" \\
        iohw run --backend build/backends/libiohw_exec.so SUITE
"""
import os
import struct
import sys

import h5py

from .case import Case
from .verdict import write_answer


class Unsupported(Exception):
    """Raised by the function (or supports) to refuse a case; the message
    is the reason."""


def _the_case(path):
    with h5py.File(path, "r") as f:
        ids = list(f["cases"])
        if len(ids) != 1:
            raise ValueError("%s holds %d cases; the exec protocol sends one"
                             % (path, len(ids)))
        return Case(path, ids[0], f["cases"][ids[0]])


def _refusal(supports, case):
    """None when the case is claimed, else the reason."""
    if supports is None:
        return None
    try:
        r = supports(case)
    except Unsupported as e:
        return str(e) or "unsupported"
    if r is True or r is None:
        return None
    return "unsupported" if r is False else str(r)


def _describe_text(prog, describe):
    d = {"name": prog, "version": "0", "protocols": "1 2"}
    d.update(describe or {})
    return "".join("%s=%s\n" % (k, v) for k, v in d.items())


class _Program:
    def __init__(self, fn, describe, supports, layout, prog, error_prefix):
        self.fn, self.supports, self.layout = fn, supports, layout
        self.error_prefix = error_prefix
        self.prog = prog
        self.describe = _describe_text(prog, describe)

    def supports_answer(self, in_path, out_path):
        why = _refusal(self.supports, _the_case(in_path))
        with h5py.File(out_path, "w") as out:
            if why is not None:
                out.attrs["unsupported"] = why

    def run_answer(self, in_path, out_path):
        case = _the_case(in_path)
        try:
            why = _refusal(self.supports, case)
            y = self.fn(case) if why is None else None
        except Unsupported as e:
            why = str(e) or "unsupported"
        if why is not None:
            with h5py.File(out_path, "w") as out:
                out.attrs["unsupported"] = why
            return
        write_answer(out_path, case, y, self.layout)

    def one_line(self, e):
        lines = str(e).strip().splitlines()
        prefix = self.error_prefix() if self.error_prefix else ""
        return "%s: %s%s: %s" % (self.prog, prefix, type(e).__name__,
                                 lines[0] if lines else "(no message)")

    def serve(self):
        """Protocol 2: requests on stdin, replies on stdout."""
        out = os.fdopen(os.dup(1), "wb")
        os.dup2(2, 1)   # what the function prints goes to stderr
        inp = sys.stdin.buffer
        while True:
            head = inp.read(4)
            if len(head) < 4:
                return 0
            (n,) = struct.unpack("<I", head)
            words = inp.read(n).decode().split("\n")
            try:
                if words[0] == "describe":
                    reply = "ok\n" + self.describe
                elif words[0] == "supports" and len(words) == 3:
                    self.supports_answer(words[1], words[2])
                    reply = "ok"
                elif words[0] == "run" and len(words) == 3:
                    self.run_answer(words[1], words[2])
                    reply = "ok"
                else:
                    reply = "error\nunknown request %r" % words[0]
            except Exception as e:  # reported in the reply; we serve on
                reply = "error\n" + self.one_line(e)
            data = reply.encode()
            out.write(struct.pack("<I", len(data)) + data)
            out.flush()

    def main(self, args):
        if args == ["--describe"]:
            sys.stdout.write(self.describe)
            return 0
        if args == ["--serve"]:
            return self.serve()
        query = bool(args) and args[0] == "--supports"
        if query:
            args = args[1:]
        if len(args) != 2:
            sys.stderr.write("usage: %s --describe | --serve | [--supports] "
                             "IN.h5 OUT.h5\n" % self.prog)
            return 2
        try:
            if query:
                self.supports_answer(args[0], args[1])
            else:
                self.run_answer(args[0], args[1])
        except Exception as e:  # the exec protocol's error: one line
            sys.stderr.write(self.one_line(e) + "\n")
            return 1
        return 0


def serve(fn, describe=None, supports=None, layout="strict", argv=None,
          error_prefix=None):
    """Runs the exec protocol's program for fn(case) -> y (forward; dx; or
    (dw, db)), in strict order unless layout="stored".  describe: extra
    --describe keys (name, version, quantized=1, directions=fwd bwd_d
    bwd_w, ...); supports(case): True/None to claim, False, a reason string
    or Unsupported to refuse (fn may raise Unsupported too);
    error_prefix(): text put before an exception's type in the one-line
    error (e.g. the library's version).  Exits with the protocol's
    status."""
    argv = sys.argv if argv is None else argv
    p = _Program(fn, describe, supports, layout, os.path.basename(argv[0]),
                 error_prefix)
    sys.exit(p.main(list(argv[1:])))
