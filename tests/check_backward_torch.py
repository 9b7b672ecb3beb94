#!/usr/bin/python3
"""tests/check_backward_torch.py - the backward oracle (specification
section 13) against torch.autograd, an independent implementation of the
transposed convolution's gradients.

Usage: /usr/bin/python3 tests/check_backward_torch.py ORACLE_DUMP [--count N]
       [--seed S]

Draws N random f64 problems (default 200) over every rank with groups,
dilation, asymmetric pads and output_padding (< max(stride, dilation), as
PyTorch requires), half of them BWD_D and half BWD_W (with or without
bias), and random inputs; tests/backward/oracle_dump.c gives the oracle's
dx or dw and db.  PyTorch pads symmetrically: it runs
torch.nn.functional.conv_transpose{1,2,3}d with padding = min(pad_begin,
pad_end) per axis, crops the result to iohw's output (from pad_begin - min,
out_size long), and back-propagates <y, dy>: x.grad is dx, w.grad dw,
bias.grad db.

Judgement (section 3.3 with section 13's T): |torch - oracle| <= (T + 2) *
2^-53 * err_bound per element.  Prints the counts (problems, elements,
elements equal bit for bit) and every disagreement.  Exit status 0 when
all agree, 1 when one does not, 2 on bad usage, 77 (skipped) when torch
cannot be imported.
"""
import random
import subprocess
import sys

try:
    import torch
except ImportError:
    print("check_backward_torch: skipped: %s cannot import torch "
          "(apt-get install python3-torch)" % sys.executable)
    sys.exit(77)

U = 2.0 ** -53
CONV = {1: torch.nn.functional.conv_transpose1d,
        2: torch.nn.functional.conv_transpose2d,
        3: torch.nn.functional.conv_transpose3d}


def random_problem(rng, direction):
    """A valid problem as a dict, drawn until its output is not empty."""
    while True:
        rank = rng.randint(1, 3)
        g = rng.randint(1, 3)
        p = dict(rank=rank, n=rng.randint(1, 2), g=g, ci=g * rng.randint(1, 3),
                 co=g * rng.randint(1, 3), dir=direction,
                 bias=rng.randint(0, 1) if direction == "bwd_w" else 0)
        lmax = 3 if rank == 3 else 6
        p["in"] = [rng.randint(1, lmax) for _ in range(rank)]
        p["k"] = [rng.randint(1, 3) for _ in range(rank)]
        p["s"] = [rng.randint(1, 3) for _ in range(rank)]
        p["d"] = [rng.randint(1, 3) for _ in range(rank)]
        p["pb"] = [rng.randint(0, 3) for _ in range(rank)]
        p["pe"] = [rng.randint(0, 3) for _ in range(rank)]
        p["op"] = [rng.randint(0, max(s, d) - 1) for s, d in zip(p["s"], p["d"])]
        p["out"] = [(l - 1) * s - b - e + d * (k - 1) + a + 1 for l, s, b, e, d, k, a in
                    zip(p["in"], p["s"], p["pb"], p["pe"], p["d"], p["k"], p["op"])]
        if min(p["out"]) >= 1:
            return p


def descriptor(p):
    ax = lambda v: "x".join(str(a) for a in v)
    pad = "x".join("%d:%d" % (b, e) for b, e in zip(p["pb"], p["pe"]))
    return ("n=%d ci=%d co=%d g=%d in=%s k=%s s=%s d=%s pad=%s op=%s bias=%d dt=f64 "
            "dir=%s" % (p["n"], p["ci"], p["co"], p["g"], ax(p["in"]), ax(p["k"]),
                        ax(p["s"]), ax(p["d"]), pad, ax(p["op"]), p["bias"], p["dir"]))


def torch_grads(p, x, w, dy):
    """dx, dw, db by autograd of <crop(conv_transpose(x, w, b)), dy>."""
    x = x.clone().requires_grad_(True)
    w = w.clone().requires_grad_(True)
    b = torch.zeros(p["co"], dtype=torch.float64, requires_grad=True)
    pm = [min(a, e) for a, e in zip(p["pb"], p["pe"])]
    yt = CONV[p["rank"]](x, w, b, stride=p["s"], padding=pm,
                         output_padding=p["op"], groups=p["g"], dilation=p["d"])
    y = yt
    for a in range(p["rank"]):
        start = p["pb"][a] - pm[a]
        y = y.narrow(2 + a, start, p["out"][a])
    (y * dy).sum().backward()
    return x.grad, w.grad, b.grad


def compare(label, got, eb, terms, want, stats, failures):
    for j, (o, e, t) in enumerate(zip(got, eb, want)):
        stats["elements"] += 1
        stats["bitwise"] += o == t
        if abs(o - t) > (terms + 2) * U * e:
            failures.append("%s[%d]: oracle %.17g, torch %.17g, bound %.3g"
                            % (label, j, o, t, (terms + 2) * U * e))


def main():
    args = sys.argv[1:]
    if not args or args[0].startswith("-"):
        print(__doc__)
        return 2
    dump, count, seed = args[0], 200, 1
    opts = args[1:]
    while opts:
        if opts[0] == "--count" and len(opts) > 1:
            count = int(opts[1])
        elif opts[0] == "--seed" and len(opts) > 1:
            seed = int(opts[1])
        else:
            print("check_backward_torch: unknown argument %r" % opts[0])
            return 2
        opts = opts[2:]

    rng = random.Random(seed)
    torch.manual_seed(seed)
    problems, text = [], []
    for i in range(count):
        p = random_problem(rng, "bwd_d" if i % 2 == 0 else "bwd_w")
        mg = p["co"] // p["g"]
        x = torch.randn([p["n"], p["ci"]] + p["in"], dtype=torch.float64)
        w = torch.randn([p["ci"], mg] + p["k"], dtype=torch.float64)
        dy = torch.randn([p["n"], p["co"]] + p["out"], dtype=torch.float64)
        first, second = (dy, w) if p["dir"] == "bwd_d" else (x, dy)
        text.append(descriptor(p))
        for t in (first, second):
            text.append(" ".join(repr(v) for v in t.flatten().tolist()))
        problems.append((p, x, w, dy))

    run = subprocess.run([dump], input="\n".join(text) + "\n", capture_output=True,
                         text=True)
    if run.returncode != 0:
        print("check_backward_torch: %s failed: %s" % (dump, run.stderr.strip()))
        return 1
    lines = run.stdout.splitlines()
    stats = dict(problems=0, elements=0, bitwise=0)
    failures = []
    for i, (p, x, w, dy) in enumerate(problems):
        head = [float(v) for v in lines[2 * i].split()]
        terms, n, got = int(head[0]), int(head[1]), head[2:]
        eb = [float(v) for v in lines[2 * i + 1].split()]
        dx, dw, db = torch_grads(p, x, w, dy)
        want = dx.flatten().tolist() if p["dir"] == "bwd_d" else dw.flatten().tolist()
        if p["dir"] == "bwd_w" and p["bias"]:
            want += db.tolist()
        before = len(failures)
        if len(got) != n or len(want) != n:
            failures.append("%d outputs, torch %d" % (len(got), len(want)))
        else:
            compare(p["dir"], got, eb, terms, want, stats, failures)
        if len(failures) > before:
            print("DISAGREE %s" % descriptor(p))
            for f in failures[before:before + 5]:
                print("  " + f)
        stats["problems"] += 1
    print("check_backward_torch: %d problems (seed %d), %d elements, %d equal bit for "
          "bit, %d disagree" % (stats["problems"], seed, stats["elements"],
                                stats["bitwise"], len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
