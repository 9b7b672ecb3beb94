/*
 * judge/diagnose_bwd.h - what diagnose_bwd.c (the driver) and
 * diagnose_bwd_variants.c (the misreadings) share.  Not public.
 *
 * A backward misreading (specification sections 3.5 and 13) is evaluated
 * as the oracle's backward definition (iohw_conv_transpose_bwd_data_def or
 * _weights_def) run on inputs, or a problem, changed the way a buggy
 * kernel misreads them, and its outputs placed the way the kernel places
 * them: canonical doubles, dx [N][C_in][L...] of a BWD_D case, dw
 * [C_in][Mg][K...] followed by db [C_out] of a BWD_W case.
 */
#ifndef IOHW_DIAGNOSE_BWD_H
#define IOHW_DIAGNOSE_BWD_H

#include <stdint.h>

#include "cases/case.h"

/* The case's inputs, canonical doubles. */
typedef struct iohw__dgb_base {
    const iohw_case *c;
    const iohw_problem *p;
    int rank, dd;                 /* dd: sums in double-double (f64) */
    int64_t N, C_in, C_out, G, Cg, Mg;
    int64_t L3[3], K3[3], O3[3];  /* per axis, leading axes padded with 1 */
    int64_t L, K, O;              /* spatial element counts */
    int64_t nx, nw, nb, ndy, nout;
    double *x;                    /* BWD_W: [N][C_in][L...]; else NULL */
    double *w;                    /* BWD_D: [C_in][Mg][K...]; else NULL */
    double *dy;                   /* [N][C_out][O...] */
} iohw__dgb_base;

/* What a misreading computed: out and eb hold nout canonical doubles
 * (allocated by the driver); io_swapped: dw is written with I and O of
 * the weight layout exchanged; terms: a terms_max for its bound (0: the
 * case's). */
typedef struct iohw__dgb_out {
    double *out, *eb;
    int io_swapped;
    int64_t terms;
} iohw__dgb_out;

/* Fills o for one misreading.  1 when it applies to the case, 0 when it
 * does not (wrong direction, no bias, one group...), -1 on failure
 * (memory, or a definition that refused the problem). */
typedef int (*iohw__dgb_fn)(const iohw__dgb_base *b, iohw__dgb_out *o);

typedef struct iohw__dgb_entry {
    const char *name;
    iohw__dgb_fn build;
    const char *meaning;
} iohw__dgb_entry;

extern const iohw__dgb_entry iohw__dgb_table[];
extern const int iohw__dgb_table_count;

/* The correct outputs (the definitions on the case's own inputs), for
 * the misreadings that start from them. */
int iohw__dgb_correct(const iohw__dgb_base *b, iohw__dgb_out *o);

/* The misreadings' names and meanings, appended after the quantized ones
 * in iohw_diagnose_name() and iohw_diagnose_meaning(). */
int iohw__dgb_count(void);
const char *iohw__dgb_name(int i);
const char *iohw__dgb_meaning(int i);

#endif
