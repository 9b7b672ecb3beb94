/*
 * backends/faults/bwd_common.h - the seeded faults of the backward
 * directions (specification section 13): each libiohw_fault_bwd_<name>.so
 * computes the forward problem right (the oracle) and dx, or dw and db,
 * wrong in one way real kernels shipped (PITFALLS.md "Backward bugs").
 *
 * The backward sums are plain loops of their own here (not the oracle's
 * definitions), over canonical doubles, with the knobs a fault turns:
 *
 *   dx[n][gc(g,c)][i] = sum_m sum_k dy[n][gm(g,m)][i*S + k*D - P + phase]
 *                                   * w[g*Cg+c][m][flip ? K-1-k : k]
 *   dw[g*Cg+c][m][k]  = sum_{n < batch} sum_i x[n][gc(g,c)][i]
 *                                   * dy[n][gm(g,m)][i*S + k*D - P + phase]
 *   db[co]            = sum_{n < batch} sum_o dy[n][co][o]
 *
 * where gc(g,c) = g*Cg + c and gm(g,m) = g*Mg + m, or c*G + g and m*G + g
 * when interleaved, and dy's extents are dy_O3 (the case's O unless a fault
 * reads dy's memory with other extents).
 */
#ifndef IOHW_BWD_COMMON_H
#define IOHW_BWD_COMMON_H

#include <stdint.h>

#include "iohw/backend.h"

typedef struct bwd_work {
    const iohw_problem *p;
    int rank;
    int64_t N, C_in, C_out, G, Cg, Mg;
    int64_t L3[3], K3[3], O3[3], S3[3], D3[3], P3[3];  /* leading axes 1 (P 0) */
    int64_t L, K, O;
    const void *dy_mem;   /* dy as handed to the backend */
    const void *w_mem;    /* BWD_D: w as handed to the backend */
    double *dy;           /* canonical [N][C_out][O...] */
    double *x;            /* BWD_W: canonical [N][C_in][L...] */
    double *w;            /* BWD_D: canonical [C_in][Mg][K...] */
} bwd_work;

/* The knobs of the loops (all 0 but dy and dy_O3: the definition). */
typedef struct bwd_knobs {
    const double *dy;     /* [N][C_out][dy_O3...] */
    int64_t dy_O3[3];
    int flip;             /* taps reversed */
    int64_t phase[3];     /* added to every dy position */
    int interleave;       /* group channels at c*G + g */
    int64_t batch;        /* images summed (dw, db) */
} bwd_knobs;

/* The knobs of the definition for w. */
void iohw__bwd_knobs(const bwd_work *bw, bwd_knobs *k);

/* The plain loops: dx [N][C_in][L...], dw [C_in][Mg][K...], db [C_out]. */
void iohw__bwd_dx(const bwd_work *bw, const bwd_knobs *k, double *dx);
void iohw__bwd_dw(const bwd_work *bw, const bwd_knobs *k, double *dw);
void iohw__bwd_db(const bwd_work *bw, const bwd_knobs *k, double *db);

/* Data-layout memory of p's dtype (x's shape when output is 0, dy's when
 * 1) read as if in `layout` with p's extents: canonical doubles, malloc'd,
 * NULL on failure. */
double *iohw__bwd_read(const iohw_problem *p, int output, const char *layout,
                       const void *mem);

/* Weight-layout memory of p's dtype read as if in `layout`: canonical
 * doubles [C_in][Mg][K...], malloc'd, NULL on failure. */
double *iohw__bwd_read_weight(const iohw_problem *p, const char *layout, const void *mem);

/* What a fault does; NULL hooks compute the direction right.  dx, dw and
 * db are canonical (db NULL without bias), zeroed before the call. */
typedef struct bwd_spec {
    int (*data)(const bwd_work *bw, double *dx);
    int (*weights)(const bwd_work *bw, double *dw, double *db);
    int dw_io_swapped;    /* dw stored with I and O of the layout exchanged */
} bwd_spec;

extern const char iohw__bwd_name[];
extern const char iohw__bwd_about[];
extern const bwd_spec iohw__bwd_spec;

#endif
