#!/usr/bin/env python3
"""tests/check_conv_torch.py - PyTorch's own answer to output_size, for
tests/test_convention_torch.c (specification section 12).

Reads lines "L K S D P O" (input size, kernel, stride, dilation, symmetric
padding, requested output size) and, for each, runs torch.nn.ConvTranspose1d
with output_size=[O] and writes "A Y", the output_padding PyTorch derives
(torch.nn.modules.conv._ConvTransposeNd._output_padding) and the length of
the output it returns, or "reject" when PyTorch refuses the request."""
import sys

import torch


def answer(L, K, S, D, P, O):
    m = torch.nn.ConvTranspose1d(1, 1, K, stride=S, padding=P, dilation=D,
                                 bias=False)
    x = torch.zeros(1, 1, L)
    try:
        a = m._output_padding(x, [O], [S], [P], [K], 1, [D])
        y = m(x, output_size=[O])
    except (ValueError, RuntimeError):
        return "reject"
    return "%d %d" % (a[0], y.shape[-1])


def main():
    for line in sys.stdin:
        if line.strip():
            print(answer(*[int(v) for v in line.split()]))


if __name__ == "__main__":
    main()
