#!/usr/bin/env bash
# Writes cases/regressions/*.h5, the minimal cases of the library
# discrepancies docs/CONFORMANCE.md describes, from their descriptors (the
# same command always writes the same file; tests/test_conformance.c checks
# that the committed files are what this script writes).
#   cases/regressions/make.sh [IOHW_BINARY [OUTPUT_DIR]]
# (default build/iohw, and this script's directory).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
iohw=${1:-$here/../../build/iohw}
out=${2:-$here}

# XNNPACK D1-D4 (xnnpack.0-5).
"$iohw" gen --id xnnpack -o "$out/xnnpack.h5" \
  --problem 'ci=1 co=1 in=1x1 k=1 xl=NHWC fill=special' \
  --problem 'ci=1 co=1 in=3x3 k=2 xl=NHWC fill=special' \
  --problem 'ci=1 co=1 in=1x1 k=3x1 s=3x1 pad=2:0x0 xl=NHWC' \
  --problem 'ci=1 co=1 in=1x1 k=1x3 s=1x3 pad=0x2:0 xl=NHWC' \
  --problem 'ci=1 co=1 in=1x1 k=3x1 s=3x1 pad=0:2x0 xl=NHWC' \
  --problem 'ci=2 co=32 in=16x16 k=1 dt=f16 xl=NHWC fill=range seed=221'

# oneDNN O1 (onednn.0, CPUs with AVX-512-BF16: subnormals flushed), O2
# (onednn.1, CPUs with AMX-BF16: a NaN reaches an output no tap of it
# touches) and O3 (onednn.2, CPUs with AVX-512: an infinite result comes
# back as NaN).
"$iohw" gen --id onednn -o "$out/onednn.h5" \
  --problem 'n=3 ci=8 co=8 g=8 in=24 k=1 dt=bf16 fill=special seed=10000011' \
  --problem 'ci=1 co=1 in=2 k=2 s=2 dt=bf16 fill=special' \
  --problem 'ci=1 co=17 in=2x2 k=3x3 s=2 d=2 dt=bf16 fill=special seed=10000429'

# oneDNN quantized (int8 deconvolution, docs/CONFORMANCE.md O4-O6):
# onednn-quant.0, every kernel: zp_y is added before rounding, so an odd
# zp_y at a tie comes out one off (O4); onednn-quant.1 and .2, kernels
# without VNNI (AVX2, AVX-512 without VNNI): s8 weights halved with s8 x
# (O5) and u8 x s8 pairs saturated at int16 (O6).
"$iohw" gen --id onednn-quant -o "$out/onednn-quant.h5" \
  --problem 'ci=1 co=1 in=8 k=1 dt=s8 wdt=s8 ydt=s8 zp=0,0,1 round=half_even m=scales sx=0.5 fill=qrandom seed=6' \
  --problem 'ci=1 co=1 in=8 k=1 dt=s8 wdt=s8 ydt=s32 fill=qrandom seed=1' \
  --problem 'ci=4 co=1 in=8 k=1 dt=u8 wdt=s8 ydt=s32 fill=qrandom seed=2'

# libtorch T1 (CPUs with AVX-512: bf16 conv_transpose sent to mkldnn's
# forward convolution): an error (torch.0) and a wrong shape (torch.1).
"$iohw" gen --id torch -o "$out/torch.h5" \
  --problem 'n=2 ci=5 co=4 in=9 k=4 dt=bf16' \
  --problem 'ci=4 co=4 g=4 in=3x4x5 k=2x3x2 s=2 d=2x1x1 dt=bf16 xl=NDHWC wl=GOIDHW fill=exact'

# Arm NN 20.08 A1 (TransposeConvolution2dLayer infers the output channels
# from the batch: a wrong shape, armnn.0, or its assertion aborts, armnn.1)
# and A2 (f16 results rounded half away from zero, armnn.2), on CpuRef.
"$iohw" gen --id armnn -o "$out/armnn.h5" \
  --problem 'n=2 ci=1 co=2 in=1x1 k=1 wl=OIHW' \
  --problem 'n=3 ci=1 co=2 in=1x1 k=1 wl=OIHW' \
  --problem 'ci=1 co=4 in=2x2 k=2 bias=1 dt=f16 fill=ties wl=OIHW'

# TensorFlow.js W1 (tfjs.0: the wasm backend's conv3dTranspose computes only
# the first output depths) and W2 (tfjs.1: it drops the first tap where a
# stride is above 1); both in tfjs-backend-wasm's Conv3DBackpropInputV2, on
# every CPU.  The cpu backend computes them right.  C1 (tfjs.2, every
# backend: tfjs-core's conv3dTranspose with 'same' and a kernel smaller than
# the stride shifts the output), a case stated in TensorFlow's convention.
"$iohw" gen --id tfjs -o "$out/tfjs.h5" \
  --problem 'ci=1 co=1 in=2x1x1 k=1 xl=NDHWC wl=DHWOI fill=exact' \
  --problem 'ci=1 co=1 in=1x1x1 k=1x1x2 s=1x1x2 xl=NDHWC wl=DHWOI fill=exact' \
  --problem 'ci=1 co=1 in=2x1x1 k=1 s=2x1x1 auto_pad=same_upper conv=tf xl=NDHWC wl=DHWOI fill=exact'

# OpenCV DNN 4.6 V2 (opencv.0, opencv.1: a 1x1 kernel with stride 1 and a
# crop takes the 1x1 path, which ignores the pads: wrong values, written
# past OpenCV's output blob; the adapter gives the blob slack, so a FAIL)
# and V3 (opencv.2: subnormals flushed to zero
# by Net::forward), on every x86-64 CPU.
"$iohw" gen --id opencv -o "$out/opencv.h5" \
  --problem 'ci=1 co=1 in=3x1 k=1 pad=1x0' \
  --problem 'ci=4 co=3 in=6x7 k=1 pad=1' \
  --problem 'ci=1 co=1 in=1x1 k=1 fill=subnormal'

# LiteRT (npm @litertjs/core 2.5.3, every CPU): L1 (litert.0: the builtin
# transpose_conv kernel clamps an overflow to the largest finite float), L2
# (litert.1: the XNNPack delegate makes NaN of an edge output a NaN weight
# tap does not reach) and L3 (litert.2: the XNNPack delegate skips a zero
# weight's product with Inf or NaN).  docs/CONFORMANCE.md, "LiteRT".
"$iohw" gen --id litert -o "$out/litert.h5" \
  --problem 'ci=1 co=1 in=2 k=2 xl=NWC wl=OWI fill=huge seed=13000068' \
  --problem 'ci=1 co=1 in=4 k=2 xl=NWC wl=OWI fill=special seed=8' \
  --problem 'ci=2 co=1 in=3 k=2 s=2 xl=NWC wl=OWI fill=zeros seed=4'
