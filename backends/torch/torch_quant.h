/*
 * backends/torch/torch_quant.h - the libtorch adapter's quantized half
 * (torch_quant.cpp), for torch_shim.cpp.  C++ only, inside the adapter.
 */
#ifndef IOHW_TORCH_QUANT_H
#define IOHW_TORCH_QUANT_H

#include <cstdint>

#include "iohw/backend.h"
extern "C" {
#include "oracle/error.h"
}

/* 0 when libtorch's qnnpack engine computes the valid quantized problem p
 * exactly as specification section 11 defines it; else -1 with the reason
 * in err. */
int iohw__torch_quant_refuse(const iohw_problem *p, iohw_error *err);

/* Computes a claimed quantized problem into y (bias int32 or NULL, requant
 * the problem's s_w values): IOHW_OK, or IOHW_UNSUPPORTED with the reason
 * in err when libtorch would refuse these scales.  Throws on any failure
 * of libtorch. */
int iohw__torch_quant_compute(const iohw_problem *p, const void *x,
                              const void *w, const int32_t *bias,
                              const float *s_w, void *y, iohw_error *err);

#endif
