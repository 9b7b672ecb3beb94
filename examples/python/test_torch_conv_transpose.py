"""PyTorch's torch.nn.functional.conv_transpose1d/2d/3d tested with iohw's
pytest plugin on the float forward cases of smoke that PyTorch's arguments
express (symmetric padding, output_padding below max(stride, dilation)).

    IOHW_TORCH_MKLDNN=0 pytest examples/python/test_torch_conv_transpose.py
"""
import os

import pytest

import iohw
import iohw.pytest

torch = pytest.importorskip("torch")
F = torch.nn.functional
if os.environ.get("IOHW_TORCH_MKLDNN") == "0":
    torch.backends.mkldnn.enabled = False


@iohw.pytest.cases(os.environ.get("IOHW_EXAMPLE_SUITE", "smoke"),
                   filter="dt=f32")
def test_conv_transpose(case):
    a = case.attrs
    if case.direction != "fwd" or a["pad_begin"] != a["pad_end"]:
        raise iohw.Unsupported("PyTorch pads symmetrically (forward only here)")
    op = [o - (case.x.shape[2 + i] - 1) * s + 2 * p - d * (k - 1) - 1
          for i, (o, s, p, d, k) in enumerate(zip(
              a["out_size"], a["stride"], a["pad_begin"], a["dilation"],
              case.problem["kernel"]))]
    if any(v < 0 or v >= max(s, d) for v, s, d in zip(op, a["stride"],
                                                      a["dilation"])):
        raise iohw.Unsupported("output_padding %s beyond PyTorch's limit" % op)
    conv = [F.conv_transpose1d, F.conv_transpose2d, F.conv_transpose3d][case.rank - 1]
    bias = torch.from_numpy(case.bias) if case.bias is not None else None
    y = conv(torch.from_numpy(case.x.copy()), torch.from_numpy(case.w.copy()),
             bias, stride=a["stride"], padding=a["pad_begin"],
             output_padding=op, groups=a["groups"], dilation=a["dilation"])
    case.check(y.numpy())
