#!/usr/bin/python3
"""Compares PyTorch's quantized ConvTranspose2d (torch.ao.nn.quantized, each
quantized engine this torch has) with the definition of the specification
section 11 as tests/check_quant.py computes it, on random per-tensor
half_even cases inside the float-exact bounds of section 11.2 (power-of-two
scales, |acc| * m_M < 2^24), where every binary32 requantization gives the
defined value.

Usage: /usr/bin/python3 tests/check_quant_torch.py [--cases N] [--seed S]

Prints one line per engine: agreeing cases / cases, and the first
disagreements.  Exit status 0 when every engine agrees, 1 otherwise, 3 when
torch or numpy is missing.  Not run by ctest: torch's engines (oneDNN's JIT
kernels in particular) depend on the CPU, and the project asserts nothing a
third-party library computes natively; this is a report.

Seen with torch 1.13.1 on an AVX2 machine, seed 1, 50 cases: qnnpack agrees
on all 50; onednn refuses non-zero output_padding and, on the rest, differs
by one exactly at ties whose zp_y is odd: it rounds zp_y + v instead of
adding zp_y to R(v) (specification section 11.3, the note under the modes).
"""
import argparse
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
try:
    import numpy as np
    import torch
    from torch.ao.nn.quantized import ConvTranspose2d
except ImportError as e:
    print("check_quant_torch.py: %s" % e)
    sys.exit(3)
import check_quant  # noqa: E402


def random_case(rng):
    """A problem as check_quant.py's dictionary, plus the torch arguments."""
    G = rng.choice([1, 1, 2])
    Cg, Mg = rng.randint(1, 3), rng.randint(1, 3)
    L = [rng.randint(1, 4), rng.randint(1, 4)]
    K = [rng.randint(1, 3), rng.randint(1, 3)]
    S = [rng.randint(1, 2), rng.randint(1, 2)]
    D = [1, 1]
    P = [rng.randint(0, K[0] - 1), rng.randint(0, K[1] - 1)]
    A = [rng.randint(0, S[0] - 1), rng.randint(0, S[1] - 1)]
    if any((L[a] - 1) * S[a] - 2 * P[a] + K[a] + A[a] < 1 for a in range(2)):
        return random_case(rng)  # an output size below 1: draw again
    zp_x, zp_y = rng.choice([0, 128, 255, rng.randint(0, 255)]), rng.randint(0, 255)
    x = [min(255, max(0, zp_x + rng.randint(-4, 4))) for _ in range(G * Cg * L[0] * L[1])]
    w = [rng.randint(-4, 4) for _ in range(G * Cg * Mg * K[0] * K[1])]
    e_x, e_w, e_y = rng.randint(-3, 0), rng.randint(-4, -1), rng.randint(-2, 2)
    bias = [rng.randint(-30, 30) for _ in range(G * Mg)]
    d = {"rank": ["2"], "batch": ["1"], "ci": [str(G * Cg)], "co": [str(G * Mg)],
         "groups": [str(G)], "in": L, "kernel": K, "stride": S, "dilation": D,
         "pad_begin": P, "pad_end": P, "out_pad": A, "x_dtype": ["u8"],
         "w_dtype": ["s8"], "y_dtype": ["u8"], "zp_x": [zp_x], "zp_w": [0],
         "zp_y": [zp_y], "rounding": ["half_even"], "m_form": ["scales"],
         "per_channel": ["0"], "s_x": [float.hex(2.0 ** e_x)],
         "s_y": [float.hex(2.0 ** e_y)], "s_w": [float.hex(2.0 ** e_w)],
         "multiplier": ["0"], "shift": ["0"], "bias": bias, "x": x, "w": w}
    d = {k: [str(v) for v in vals] for k, vals in d.items()}
    return d, (G, Cg, Mg, L, K, S, P, A, e_x, e_w, e_y, zp_x, zp_y, x, w, bias)


def run_torch(engine, args):
    G, Cg, Mg, L, K, S, P, A, e_x, e_w, e_y, zp_x, zp_y, x, w, bias = args
    torch.backends.quantized.engine = engine
    s_x, s_w, s_y = 2.0 ** e_x, 2.0 ** e_w, 2.0 ** e_y
    m = ConvTranspose2d(G * Cg, G * Mg, K, stride=S, padding=P,
                        output_padding=A, groups=G)
    wf = torch.tensor(np.array(w, dtype=np.float32).reshape(G * Cg, Mg, *K) * s_w)
    bf = torch.tensor(np.array(bias, dtype=np.float32) * s_x * s_w)
    m.set_weight_bias(torch.quantize_per_tensor(wf, s_w, 0, torch.qint8), bf)
    m.scale, m.zero_point = s_y, zp_y
    xf = torch.tensor((np.array(x, dtype=np.float32) - zp_x).reshape(1, G * Cg, *L) * s_x)
    xq = torch.quantize_per_tensor(xf, s_x, zp_x, torch.quint8)
    return [int(v) for v in m(xq).int_repr().flatten().tolist()]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", type=int, default=50)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    engines = [e for e in torch.backends.quantized.supported_engines if e != "none"]
    bad = 0
    for engine in engines:
        rng = random.Random(a.seed)
        agree, shown, refused = 0, 0, 0
        for j in range(a.cases):
            d, args = random_case(rng)
            want = [int(v) for v in check_quant.solve(d).split()[1:]]
            try:
                got = run_torch(engine, args)
            except RuntimeError:
                refused += 1  # e.g. onednn: "only supports zero output_padding"
                continue
            if got == want:
                agree += 1
            elif shown < 3:
                shown += 1
                diff = [(i, g, w) for i, (g, w) in enumerate(zip(got, want)) if g != w]
                print("%s case %d differs at %d of %d elements, first (index, torch, "
                      "definition): %s" % (engine, j, len(diff), len(want), diff[:4]))
        print("%s: %d of %d cases agree bit for bit (%d refused by torch)"
              % (engine, agree, a.cases - refused, refused))
        bad += agree != a.cases - refused
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
