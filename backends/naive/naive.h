/*
 * backends/naive/naive.h - internals of the naive backend: its own reading
 * of the problem and the layout strings, and its own 16-bit conversions.
 * Nothing here comes from the oracle; the point of this backend is to be a
 * second, independent formulation.
 */
#ifndef IOHW_NAIVE_H
#define IOHW_NAIVE_H

#include <stddef.h>
#include <stdint.h>

#include "iohw/backend.h"

/* Spatial axes are always handled as three, D, H, W; an axis the rank lacks
 * has extent 1, kernel 1, stride 1, dilation 1 and no padding. */
typedef struct naive_geometry {
    int64_t n, cin, cout, groups, cg, mg;
    int64_t in[3], k[3], s[3], d[3], pb[3], out[3];
    /* Element strides in memory. */
    int64_t x_n, x_c, x_sp[3];     /* x: batch, input channel, D, H, W */
    int64_t y_n, y_c, y_sp[3];     /* y: batch, output channel, D, H, W */
    int64_t w_g, w_i, w_o, w_k[3]; /* w: group, channel within the group,
                                      output channel within the group,
                                      kernel D, H, W */
    int64_t x_count, y_count, w_count;
} naive_geometry;

/* Reads and checks the problem (sizes, output-size formula, layouts);
 * returns 0, or -1 with a message in why (size n). */
int iohw__naive_geometry(const iohw_problem *p, naive_geometry *g, char *why,
                         size_t n);

/* binary16 and bfloat16 <-> float, round to nearest even. */
float iohw__naive_f16_to_float(uint16_t h);
uint16_t iohw__naive_float_to_f16(float f);
float iohw__naive_bf16_to_float(uint16_t h);
uint16_t iohw__naive_float_to_bf16(float f);

#endif
