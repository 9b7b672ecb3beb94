#!/usr/bin/python3
"""A protocol 2 program for the exec backend's tests (docs/EXEC_PROTOCOL.md),
with no library: it answers every run request with `iohw oracle`.

    serve_oracle.py IOHW MODE [--describe | --serve | [--supports] IN OUT]

IOHW is the iohw binary; MODE says how it behaves:

    good      claims everything and computes it
    layouts   as good, but it takes only the layouts NHWC / HWOI: listed
              by --describe, and other pairs refused when asked
    die:FILE  the first run request (when FILE does not exist: it is made)
              kills the program with SIGSEGV; later ones are served
    hang      run requests never get an answer
    garbage   run requests get a line of text instead of a message
    error     run requests get "error" with a message
    refuse    supports requests get "unsupported" with a reason
    hog:MB    run requests first fill MB MiB of memory
    reserve   run requests first reserve 16 GiB of address space (unused)
    op-below-stride  refuses (in supports and run) output_padding >= stride,
              like ONNX Runtime and oneDNN
    co-max:N  refuses (in supports and run) problems with more than N output
              channels: a size, not part of the problem's class
    poison:N  the run request for a problem with N output channels is
              answered "error" and leaves the program poisoned (as a heap
              it overflowed): every later request kills it with SIGSEGV
    poison-quiet:N  as poison:N, but that run request is served well
    exit-crash  run requests write OUT and then the program kills itself
              with SIGABRT, without a reply (as a crash at interpreter exit)
    long      name and version of 4096 characters; problems with 5 output
              channels are refused, and run requests for 7 get "error",
              each with a text of 4096 characters ending in "END"
    loud      protocol 1 run requests fail with 4096 characters on stderr
              ending in "END"

When IOHW_TEST_SERVE_DESCRIBE is set, its lines (separated by '|') are
added to the --describe answer (protocols=1 2 3|supports=problem).

Protocol 1 (no --serve) is spoken too, so the same program serves both.
When IOHW_TEST_SERVE_LOG names a file, every request's first word (or
protocol 1 argument) is appended to it, one a line.
"""
import os
import signal
import struct
import subprocess
import sys
import time

NAME = "serve-oracle"
KEPT = None  # what the hog and reserve modes hold on to
VERSION = "1.0"


POISONED = False
LONG = "L" * 4093 + "END"


def describe(mode):
    name, version = (LONG, LONG) if mode == "long" else (NAME, VERSION)
    text = "name=%s\nversion=%s\nprotocols=1 2\n" % (name, version)
    if mode == "layouts":
        text += "data_layouts=NHWC\nweight_layouts=HWOI\n"
    extra = os.environ.get("IOHW_TEST_SERVE_DESCRIBE")
    if extra:
        text += extra.replace("|", "\n") + "\n"
    return text


def out_channels(iohw, in_path):
    shown = subprocess.run([iohw, "show", in_path], capture_output=True).stdout
    for w in shown.decode().split():
        if w.startswith("co="):
            return int(w[3:])
    return -1


def log(what):
    path = os.environ.get("IOHW_TEST_SERVE_LOG")
    if path:
        with open(path, "a") as f:
            f.write(what + "\n")


def refusal(iohw, mode, in_path):
    """Why a supports request is refused, or None."""
    if mode == "refuse":
        return "output_padding 2 is not below stride 2"
    if mode.startswith("co-max:"):
        co = out_channels(iohw, in_path)
        if co > int(mode[7:]):
            return "co=%d is more than %s output channels" % (co, mode[7:])
        return None
    if mode == "long":
        return LONG if out_channels(iohw, in_path) == 5 else None
    if mode not in ("layouts", "op-below-stride"):
        return None
    shown = subprocess.run([iohw, "show", in_path], capture_output=True).stdout
    if mode == "op-below-stride":
        words = dict(w.split("=", 1) for w in shown.decode().split()
                     if "=" in w and w.split("=")[0] in ("s", "op"))
        for s, op in zip(words["s"].split("x"), words["op"].split("x")):
            if int(op) >= int(s):
                return "output_padding %s >= stride %s" % (op, s)
        return None
    if b"xl=NHWC wl=HWOI" not in shown:
        return "only NHWC with HWOI"
    return None


def oracle(iohw, in_path, out_path):
    """None when `iohw oracle` wrote OUT, else its complaint."""
    p = subprocess.run([iohw, "oracle", in_path, "-o", out_path],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if p.returncode != 0:
        return p.stderr.decode(errors="replace").strip() or "iohw oracle failed"
    return None


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


def misbehave(mode, out, iohw=None, words=None):
    """Does what MODE says to a run request; True when it answered."""
    global KEPT, POISONED
    if mode.startswith("poison"):
        if out_channels(iohw, words[1]) != int(mode.split(":")[1]):
            return False
        POISONED = True
        if mode.startswith("poison-quiet"):
            return False
        send(out, "error\nthis case overflowed a heap buffer")
        return True
    if mode == "exit-crash":
        if oracle(iohw, words[1], words[2]) is None:
            os.kill(os.getpid(), signal.SIGABRT)
        return False
    if mode == "long" and out_channels(iohw, words[1]) == 7:
        send(out, "error\n" + LONG)
        return True
    if mode.startswith("hog:"):
        KEPT = bytearray(b"\1" * (int(mode[4:]) << 20))
        return False
    if mode == "reserve":
        import mmap
        KEPT = mmap.mmap(-1, 16 << 30, flags=mmap.MAP_PRIVATE |
                         mmap.MAP_ANONYMOUS | getattr(mmap, "MAP_NORESERVE", 0))
        return False
    if mode.startswith("die:"):
        marker = mode[4:]
        if not os.path.exists(marker):
            open(marker, "w").close()
            sys.stderr.write("serve_oracle: about to die\n")
            sys.stderr.flush()
            os.kill(os.getpid(), signal.SIGSEGV)
        return False
    if mode == "hang":
        while True:
            time.sleep(60)
    if mode == "garbage":
        out.write(b"hello, this is not a message\n")
        out.flush()
        return True
    if mode == "error":
        send(out, "error\nno kernel for this problem")
        return True
    return False


def serve(iohw, mode):
    inp, out = sys.stdin.buffer, sys.stdout.buffer
    while True:
        req = read_message(inp)
        if req is None:
            return 0
        words = req.split("\n")
        log(words[0])
        if POISONED:
            os.kill(os.getpid(), signal.SIGSEGV)
        if words[0] == "describe":
            send(out, "ok\n" + describe(mode))
        elif words[0] == "supports":
            why = refusal(iohw, mode, words[1])
            send(out, "ok" if why is None else "unsupported\n" + why)
        elif words[0] == "run":
            if misbehave(mode, out, iohw, words):
                continue
            why = refusal(iohw, mode, words[1])
            if why is not None:
                send(out, "unsupported\n" + why)
                continue
            why = oracle(iohw, words[1], words[2])
            send(out, "ok" if why is None else "error\n" + why)
        else:
            send(out, "error\nunknown request " + words[0])


def main(argv):
    iohw, mode, args = argv[1], argv[2], argv[3:]
    if args != ["--serve"]:
        log(args[0] if args and args[0].startswith("--") else "run")
    if args == ["--describe"]:
        sys.stdout.write(describe(mode))
        return 0
    if args == ["--serve"]:
        return serve(iohw, mode)
    if args and args[0] == "--supports":
        if refusal(iohw, mode, args[1]) is not None:
            sys.stdout.write("refused\n")
            return 3
        return 0
    if mode.startswith("hog:") or mode == "reserve":
        misbehave(mode, None)
    if mode == "loud":
        sys.stderr.write(LONG + "\n")
        return 1
    why = oracle(iohw, args[0], args[1])
    if why is not None:
        sys.stderr.write(why + "\n")
        return 1
    if mode == "exit-crash":
        os.kill(os.getpid(), signal.SIGABRT)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
