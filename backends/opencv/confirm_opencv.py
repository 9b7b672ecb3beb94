#!/usr/bin/python3
"""Confirms OpenCV DNN's discrepancies V1-V3 (docs/CONFORMANCE.md) without
iohw: ONNX ConvTranspose models written by the onnx package, run by
python3-opencv's cv2.dnn.readNetFromONNX, compared with a numpy
transposed convolution written from the definition (specification
section 1).  Each check runs in its own process (V2 corrupts the heap).

    /usr/bin/python3 backends/opencv/confirm_opencv.py

Prints one line per check; exits 0 when every discrepancy is still there,
77 when cv2, onnx or numpy is missing.
"""
import subprocess
import sys

try:
    import cv2
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper
except ImportError as e:
    print(f"skipped: {e} (apt-get install python3-opencv python3-onnx python3-numpy)")
    sys.exit(77)


def out_size(i, k, s, d, pb, pe, op):
    return (i - 1) * s - pb - pe + d * (k - 1) + op + 1


def model(w, s, d, pb, pe, op):
    ci, mg, kh, kw = w.shape
    node = helper.make_node("ConvTranspose", ["X", "W"], ["Y"], kernel_shape=[kh, kw],
                            strides=list(s), dilations=list(d), pads=list(pb) + list(pe),
                            output_padding=list(op))
    return node


def run_opencv(x, w, s, d, pb, pe, op):
    o = [out_size(x.shape[2 + a], w.shape[2 + a], s[a], d[a], pb[a], pe[a], op[a]) for a in (0, 1)]
    g = helper.make_graph(
        [model(w, s, d, pb, pe, op)], "g",
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, list(x.shape))],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [x.shape[0], w.shape[1]] + o)],
        [numpy_helper.from_array(w, "W")])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 11)])
    m.ir_version = 7
    net = cv2.dnn.readNetFromONNX(m.SerializeToString())
    net.setInput(x)
    return net.forward()


def reference(x, w, s, d, pb, pe, op):
    """y[n, m, o] = sum over c, i, k with i*s + k*d - pb = o of x[n, c, i] * w[c, m, k]."""
    n, ci, ih, iw = x.shape
    _, mg, kh, kw = w.shape
    oh, ow = (out_size(x.shape[2 + a], w.shape[2 + a], s[a], d[a], pb[a], pe[a], op[a]) for a in (0, 1))
    y = np.zeros((n, mg, oh, ow), np.float64)
    for i in range(ih):
        for j in range(iw):
            for a in range(kh):
                for b in range(kw):
                    h, v = i * s[0] + a * d[0] - pb[0], j * s[1] + b * d[1] - pb[1]
                    if 0 <= h < oh and 0 <= v < ow:
                        y[:, :, h, v] += x[:, :, i, j].astype(np.float64) @ w[:, :, a, b].astype(np.float64)
    return y


def rand(shape, seed):
    return np.random.RandomState(seed).randn(*shape).astype(np.float32)


def v1():
    """Dilation 2: OpenCV returns the dense kernel's output (its shape, its values)."""
    x, w = rand((1, 2, 4, 5), 1), rand((2, 3, 3, 3), 2)
    y = run_opencv(x, w, (1, 1), (2, 2), (0, 0), (0, 0), (0, 0))
    want = reference(x, w, (1, 1), (2, 2), (0, 0), (0, 0), (0, 0))
    dense = reference(x, w, (1, 1), (1, 1), (0, 0), (0, 0), (0, 0))
    same = y.shape == dense.shape and np.abs(y - dense).max() < 1e-5
    return same, f"dilation 2: OpenCV {list(y.shape)}, definition {list(want.shape)}; " \
                 f"equals the dense kernel's output: {same}"


def v2():
    """1x1 kernel, stride 1, pads 1: wrong values (the 1x1 path ignores the pads)."""
    x, w = rand((1, 4, 6, 7), 3), rand((4, 3, 1, 1), 4)
    y = run_opencv(x, w, (1, 1), (1, 1), (1, 1), (1, 1), (0, 0))
    want = reference(x, w, (1, 1), (1, 1), (1, 1), (1, 1), (0, 0))
    full = reference(x, w, (1, 1), (1, 1), (0, 0), (0, 0), (0, 0))
    err = float(np.abs(y - want).max())
    # The 1x1 path writes the uncropped planes from the blob's start.
    prefix = np.allclose(y[0, 0].reshape(-1), full[0, 0].reshape(-1)[: y[0, 0].size], atol=1e-5)
    return err > 1e-3, f"1x1 crop: max |OpenCV - definition| = {err:.3g}; " \
                       f"OpenCV's first channel is the start of the uncropped first plane: {prefix}"


def v3():
    """Subnormal products flushed to zero."""
    x = np.full((1, 1, 1, 1), 2.0 ** -70, np.float32)
    w = np.full((1, 1, 1, 1), 2.0 ** -70, np.float32)
    y = run_opencv(x, w, (1, 1), (1, 1), (0, 0), (0, 0), (0, 0))
    want = np.float32(2.0 ** -140)
    return y.item() == 0.0 and want != 0, f"2^-70 * 2^-70: OpenCV {y.item()!r}, definition {float(want)!r}"


CHECKS = {"V1": v1, "V2": v2, "V3": v3}

if __name__ == "__main__":
    if len(sys.argv) == 2:
        cv2.setNumThreads(1)
        ok, text = CHECKS[sys.argv[1]]()
        print(f"{sys.argv[1]} {'still there' if ok else 'GONE'}: {text}", flush=True)
        sys.exit(0 if ok else 1)
    print(f"OpenCV {cv2.__version__}, onnx {onnx.__version__}, numpy {np.__version__}")
    status = 0
    for name in CHECKS:
        p = subprocess.run([sys.executable, __file__, name], capture_output=True, text=True)
        print(p.stdout.strip() or f"{name}: no output")
        if p.returncode < 0 and "still there" in p.stdout:
            print(f"{name}: then the process died of signal {-p.returncode} (its heap is corrupt)")
        elif p.returncode != 0:
            print(f"{name}: exit status {p.returncode}{': ' + p.stderr.strip().splitlines()[-1] if p.stderr.strip() else ''}")
            status = 1
    sys.exit(status)
