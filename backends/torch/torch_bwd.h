/*
 * backends/torch/torch_bwd.h - the torch adapter's backward directions
 * (specification section 13): at::convolution_backward with
 * transposed=true (torch_bwd.cpp).  C++ only; every function may throw.
 */
#ifndef IOHW_TORCH_BWD_H
#define IOHW_TORCH_BWD_H

#include <cstddef>

#include "iohw/backend.h"

/* dx (data layout, C = C_in) from dy (data layout, C = C_out) and w. */
void iohw__torch_bwd_data(const iohw_problem *p, const void *dy,
                          const void *w, void *dx);

/* dw (weight layout) from x and dy, and db ([C_out]) when has_bias. */
void iohw__torch_bwd_weights(const iohw_problem *p, const void *x,
                             const void *dy, void *dw, void *db);

/* 1 when libtorch computes direction dir (IOHW_DIR_BWD_D or _W) of this
 * rank and float dtype here, found by running a tiny problem; 0 with the
 * reason in why otherwise.  Never throws. */
int iohw__torch_bwd_probe(int dir, int rank, iohw_dtype dt, char *why,
                          size_t n);

#endif
