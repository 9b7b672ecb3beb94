/*
 * judge/diagnose_internal.h - what diagnose.c (the driver) and
 * diagnose_variants.c (the misinterpretations) share.  Not public.
 *
 * A variant describes what a buggy backend computed, as a transposed
 * convolution on canonical double tensors (x[N][C_in][L...],
 * w[C_in][Mg][K...], bias[C_out]) followed by a placement on the case's own
 * output grid:
 *   - the backend's kernel, stride and dilation (p), and its inputs (x, w,
 *     bias, possibly transformed copies of the case's);
 *   - begin[a]: the full-output coordinate it put at output position 0 of
 *     axis a (the case's pad_begin when correct; may be negative: positions
 *     before the full output hold only the bias);
 *   - hi[a]: positions >= hi[a] hold only the bias (a shorter output);
 *   - bcast[a]: every position of axis a shows full-output position 0 (a
 *     squeezed size-1 axis broadcast);
 *   - out_interleaved: output channel g*Mg + m was written at m*G + g;
 *     1: the bias stays with the channel written, 2: it moves too;
 *   - out_layout: the memory order the backend wrote y in.
 * Every element is bias[c] + the product placed there (nothing where no
 * product is placed).
 * The driver evaluates the oracle's core (iohw_conv_transpose_ref) on a
 * problem whose pads and output_padding are chosen so that it covers exactly
 * the case's grid, so every variant is comparable element for element.
 */
#ifndef IOHW_DIAGNOSE_INTERNAL_H
#define IOHW_DIAGNOSE_INTERNAL_H

#include <stdint.h>

#include "cases/case.h"

typedef struct iohw__dg_base {
    const iohw_case *c;
    const iohw_problem *p;
    int rank;
    int64_t N, C_in, C_out, G, Cg, Mg;
    int64_t L3[3], K3[3], O3[3];  /* per axis, leading axes padded with 1 */
    int64_t L, K, O;              /* spatial element counts */
    int64_t nx, nw, nb, ny;
    double *x, *w, *bias;         /* the case's inputs, canonical; bias NULL
                                     without bias */
    const void *y;                /* the output diagnosed (case dtype and
                                     layout), or NULL when judging */
} iohw__dg_base;

typedef struct iohw__dg_variant {
    iohw_problem p;               /* in_size, kernel, stride, dilation used */
    int64_t begin[3];
    int64_t hi[3];
    int bcast[3];
    const double *x, *w, *bias;
    char out_layout[16];
    int out_interleaved;
    double *owned[3];             /* copies to free (x, w, bias) */
    int judge_flushed;            /* 1: judged by the rule of a declared
                                     flush (iohw_compare_flushed): products,
                                     partial sums and results below the
                                     smallest normal may read as zero */
    int out_round;                /* how the result was rounded to the
                                     dtype: IOHW__DG_ROUND_* */
    int skip_zero;                /* IOHW__DG_SKIP_*: products whose x,
                                     w or either is zero are skipped
                                     (iohw__dg_conv_skip_zero); 0: none */
    int accum;                    /* 1: every product and every partial sum
                                     rounded to the dtype
                                     (iohw__dg_conv_terms); 0: exact */
} iohw__dg_variant;

/* Roundings of the result to the dtype (iohw__dg_variant.out_round). */
enum {
    IOHW__DG_ROUND_NEAREST_EVEN = 0, /* the correct one */
    IOHW__DG_ROUND_TRUNCATE,         /* toward zero */
    IOHW__DG_ROUND_HALF_AWAY,        /* to nearest, ties away from zero */
    IOHW__DG_ROUND_SATURATE          /* to nearest even, overflow to +-max */
};

/* Fills v for one misinterpretation, starting from the correct one.
 * Returns 1 when it applies and differs from the case, 0 when it does not
 * apply, -1 when it could not be built (memory). */
typedef int (*iohw__dg_build_fn)(const iohw__dg_base *b, iohw__dg_variant *v);

typedef struct iohw__dg_entry {
    const char *name;
    iohw__dg_build_fn build;      /* NULL for "outputs left unwritten" */
    const char *meaning;          /* one line for a backend author: what
                                     the kernel does ("your kernel reads the
                                     weight as OIHW: ...") */
} iohw__dg_entry;

/* The misinterpretations in the order they are tried. */
extern const iohw__dg_entry iohw__dg_table[];
extern const int iohw__dg_table_count;

/* The numeric faults (diagnose_numeric.c), builders as above. */
int iohw__dg_subnormals_flushed(const iohw__dg_base *b, iohw__dg_variant *v);
int iohw__dg_truncated(const iohw__dg_base *b, iohw__dg_variant *v);
int iohw__dg_half_away(const iohw__dg_base *b, iohw__dg_variant *v);
int iohw__dg_saturated(const iohw__dg_base *b, iohw__dg_variant *v);
int iohw__dg_zero_x_skipped(const iohw__dg_base *b, iohw__dg_variant *v);
int iohw__dg_zero_w_skipped(const iohw__dg_base *b, iohw__dg_variant *v);
int iohw__dg_zero_skipped(const iohw__dg_base *b, iohw__dg_variant *v);
int iohw__dg_w_bf16(const iohw__dg_base *b, iohw__dg_variant *v);
int iohw__dg_x_bf16(const iohw__dg_base *b, iohw__dg_variant *v);
int iohw__dg_xw_bf16(const iohw__dg_base *b, iohw__dg_variant *v);

/* The crop starts at pad_end (diagnose_variants.c): "pad begin and end
 * exchanged", and the other SAME split of a stated convention. */
int iohw__dg_pads_exchanged(const iohw__dg_base *b, iohw__dg_variant *v);

/* Misreadings of a stated convention (diagnose_conv.c), builders as above. */
int iohw__dg_same_lower_for_upper(const iohw__dg_base *b, iohw__dg_variant *v);
int iohw__dg_same_upper_for_lower(const iohw__dg_base *b, iohw__dg_variant *v);
int iohw__dg_valid_for_same(const iohw__dg_base *b, iohw__dg_variant *v);
int iohw__dg_onnx_out_split_at_end(const iohw__dg_base *b, iohw__dg_variant *v);

/* v rounded to dt by `mode` (IOHW__DG_ROUND_*), as a double; NaN and +-Inf
 * stay.  f64 is returned as it is. */
double iohw__dg_round(iohw_dtype dt, int mode, double v);

/* Which zero factors a zero-skipping backend skips (bits of skip_zero). */
#define IOHW__DG_SKIP_X 1
#define IOHW__DG_SKIP_W 2

/* The oracle's core (iohw_conv_transpose_ref's arguments, no bias) with
 * every product whose x (skip & IOHW__DG_SKIP_X) or w (skip &
 * IOHW__DG_SKIP_W) is zero skipped, so such a 0 x Inf or 0 x NaN adds
 * nothing; eb sums |x * w| over the products kept.  0, or -1 on a problem
 * that does not validate. */
int iohw__dg_conv_skip_zero(const iohw_problem *q, int skip, const double *x,
                            const double *w, double *y, double *eb);

/* The same, and with accum set, the sum accumulated in q's dtype: every
 * product rounded to it and added to an accumulator rounded to it, input
 * channel by input channel (diagnose_numeric.c). */
int iohw__dg_conv_terms(const iohw_problem *q, int skip, int accum, const double *x,
                        const double *w, double *y, double *eb);

/* "accumulated in f16" (or bf16): the case's 16-bit sum accumulated in
 * the 16-bit type, tried where doing so fails the case (diagnose_accum.c). */
int iohw__dg_accum16(const iohw__dg_base *b, iohw__dg_variant *v);

/* The case's x memory read as if it were in data layout `layout`, or its w
 * memory read as if in weight layout `layout`: canonical doubles, malloc'd;
 * NULL when the layout does not fit the rank or memory ran out. */
double *iohw__dg_read_x(const iohw_case *c, const char *layout);
double *iohw__dg_read_w(const iohw_case *c, const char *layout);

#endif
