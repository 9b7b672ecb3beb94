/*
 * judge/diagnose_quant.h - naming the bug behind a failing quantized
 * output (specification section 11).  Internal to harness/ (and its
 * tests); iohw_diagnose_quant() reaches it for a quantized case, and the names
 * and meanings follow the float ones in iohw_diagnose_name() and
 * iohw_diagnose_meaning().
 *
 * The backend's y is compared, bit for bit, with the quantized oracle
 * re-run under each misreading of the definition: a zero point of x or w
 * not subtracted, another rounding mode, zp_y added before rounding, the
 * per-channel M applied along I, no saturation (wrap-around), the bias
 * added after the requantization, the weight's I and O exchanged.
 */
#ifndef IOHW_DIAGNOSE_QUANT_H
#define IOHW_DIAGNOSE_QUANT_H

#include <stddef.h>
#include <stdint.h>

#include "iohw/backend.h"
#include "oracle/quant.h"

/* A quantized case as the diagnosis reads it.  p's dtype is ignored (any
 * float code makes it pass iohw_problem_validate); x and w are in p's data
 * and weight layouts, of q.x_dtype and q.w_dtype. */
typedef struct iohw__dgq_case {
    iohw_problem p;
    iohw_quant q;
    const void *x, *w;
    const int32_t *bias;   /* C_out values when p.has_bias, else NULL */
} iohw__dgq_case;

/* Writes to buf "matches the oracle with A" naming the misreading whose
 * output equals y (in p's data layout, of q.y_dtype), or the common name
 * of the group of those that do when several do and they share one
 * (specification section 11.5); "" when none does, when several do with
 * no common name, when y carries no trace (iohw__dg_spread) or y equals
 * the oracle.  Returns 1 when something was named, 0 otherwise (also when
 * the case is too large to diagnose). */
int iohw__dg_quant(const iohw__dgq_case *c, const void *y, char *buf, size_t n);

/* What y holds, for the one place a diagnosis is accepted (float and
 * quantized): when the elements that differ from the oracle are all NaN or
 * infinite, or all saturated at one of the type's limits, or when the
 * whole output holds one value and two or more elements differ, the output
 * carries no trace of how it was computed (a constant 255 "matches"
 * several misreadings at once), and no misreading is named.  Saturation
 * at both limits, in a pattern, is a trace. */
typedef struct iohw__dg_spread {
    int64_t seen;       /* elements seen */
    int64_t diff;       /* of those, elements that differ from the oracle */
    int64_t finite_diff;  /* of those, finite ones */
    int informative;    /* one of these is inside the limits */
    int limits_varied;  /* they hold two values or more */
    int varied;         /* the elements seen hold two values or more */
    double first, first_diff;
} iohw__dg_spread;

/* Counts an element of y: got, whether it differs from the oracle, the
 * type's limits lo and hi (values at them count as saturated). */
void iohw__dg_spread_add(iohw__dg_spread *s, double got, int differs, double lo,
                         double hi);
/* 1 when a diagnosis may be named on what s has seen. */
int iohw__dg_spread_ok(const iohw__dg_spread *s);

/* The case in canonical layouts (IOHW order, x NC..., w IO..., y NC...),
 * as a misreading's own computation reads it: x and w as bytes of
 * q->x_dtype and q->w_dtype, bias C_out values or NULL, ny outputs. */
typedef struct iohw__dgq_canon {
    const iohw_problem *p;   /* canonical layouts, dtype f32 (float view) */
    const iohw_quant *q;
    const uint8_t *x, *w;
    const int32_t *bias;
    int64_t ny, OV;          /* outputs; spatial outputs per (n, oc) */
} iohw__dgq_canon;

/* A misreading that computes the accumulators its own way: acc[ny] :=
 * what the misread kernel accumulates (bias included when it adds one);
 * 0, or -1 when it cannot be evaluated on this case. */
typedef int (*iohw__dgq_acc_fn)(const iohw__dgq_canon *c, int64_t *acc);

/* A misreading that finishes an accumulator its own way: *out := the
 * value the misread kernel stores for output channel oc (already in y's
 * type, saturated or wrapped as it does); 0, or -1 when it cannot be
 * evaluated. */
typedef int (*iohw__dgq_finish_fn)(const iohw__dgq_canon *c, int64_t oc, int64_t acc,
                                   int64_t *out);

/* The misreadings: count, name, one-line meaning for a backend author. */
int iohw__dgq_count(void);
const char *iohw__dgq_name(int i);
const char *iohw__dgq_meaning(int i);

#endif
