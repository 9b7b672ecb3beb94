/*
 * backends/faults/fault_common.h - seeded-fault backends.
 *
 * Each fault backend reproduces one bug that real transposed-convolution
 * implementations shipped (the suite's PITFALLS list) or one misbehaviour
 * (crash, hang, writes where it must not, unwritten output, errors on cases
 * it claimed, garbage).  They exist to prove the suite catches each one.
 *
 * A fault never re-implements the convolution: it perturbs the problem or
 * the inputs the way the buggy code misreads them and calls the oracle's
 * core.  Faults that act on single products or on the final rounding
 * (skipping zeros, flushing subnormals, truncating) use the helpers of
 * fault_numbers.c: the definition's sum term by term, and roundings.  The common model, fault_work, describes what a buggy backend
 * computes:
 *
 *   1. the "full" product of a problem q without padding or output padding
 *      (q starts as the real problem with pads and output_padding zeroed, so
 *      its output size along axis a is F_a = (L_a - 1)*S_a + (K_a - 1)*D_a + 1);
 *   2. per axis a, a map from each real output position o < O_a to the
 *      position of the full product it shows, or -1 for "nothing reaches
 *      here" (the element holds only its bias);
 *   3. per output channel c, the full product's channel it shows.
 *
 *   y[n, c, o] = bias[c] + full[n, cmap[c], map_0[o_0], ...]   (0 if any -1)
 *
 * The correct computation is map_a[o] = o + P_a (when < F_a), cmap = the
 * identity.  A fault's perturb hook changes x, w, bias, q (kernel,
 * dilation: then it calls iohw__fault_refresh) and the maps.
 */
#ifndef IOHW_FAULT_COMMON_H
#define IOHW_FAULT_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "fault_quant.h"
#include "iohw/backend.h"
#include "oracle/error.h"

typedef struct fault_work {
    const iohw_problem *p; /* the problem as given */
    iohw_problem q;        /* the problem computed in full (no pads, no op,
                              no bias) */
    double *x;             /* canonical x[N][C_in][L...] */
    double *w;             /* canonical w[C_in][Mg][K...] of q */
    double *bias;          /* [C_out], or NULL */
    int64_t *map[3];       /* per axis a < rank: [O_a] */
    int64_t *cmap;         /* [C_out] */
} fault_work;

/* What one fault does; every hook is optional (NULL). */
typedef struct fault_spec {
    /* Called first; a status other than IOHW_OK is returned from run()
     * (claims-then-errors), and it may crash or hang instead. */
    int (*before)(const iohw_problem *p, iohw_error *err);
    /* Perturbs the model of the computation (see above). */
    int (*perturb)(fault_work *fw, iohw_error *err);
    /* Replaces the whole computation: y in the problem's layout and dtype. */
    int (*compute)(const iohw_problem *p, const void *x, const void *w,
                   const void *bias, void *y, iohw_error *err);
    /* Replaces the final copy of the computed result (count elements of
     * the dtype, in the data layout) into the caller's y. */
    void (*store)(const iohw_problem *p, const void *result, void *y,
                  const void *x);
    /* Appended: 0 when supports() claims the (valid) problem; otherwise
     * the reason in err and supports() says IOHW_UNSUPPORTED.  NULL: every
     * valid problem is claimed. */
    int (*claims)(const iohw_problem *p, iohw_error *err);
    /* Appended: the quantized computation behind run_quant()
     * (fault_quant.h): the canonical y, of fw->q.y_dtype, into yc.  A
     * fault without it claims no quantized problem; a fault with it and
     * no float hook (before, perturb, compute) claims only quantized
     * problems. */
    int (*compute_quant)(fault_qwork *fw, void *yc, iohw_error *err);
} fault_spec;

/* Defined by each fault's own file. */
extern const char iohw__fault_name[];   /* e.g. "fault_io_swap" */
extern const char iohw__fault_about[];  /* one line: the bug */
extern const fault_spec iohw__fault_spec;

/* --- helpers for the hooks ------------------------------------------- */

/* Sets up the model of the correct computation: canonical inputs, q, the
 * identity maps.  Free with iohw__fault_work_free. */
int iohw__fault_work_init(fault_work *fw, const iohw_problem *p,
                          const void *x, const void *w, const void *bias,
                          iohw_error *err);
void iohw__fault_work_free(fault_work *fw);

/* After q's kernel or dilation changed: recomputes q's output size and
 * resets the maps to the correct crop of the new full product. */
int iohw__fault_refresh(fault_work *fw, iohw_error *err);

/* Reduces q's kernel along axis a to one tap: the tap `tap` (sum = 0) or
 * the sum of all taps (sum = 1).  Refreshes. */
int iohw__fault_kernel_axis(fault_work *fw, int a, int sum, int64_t tap,
                            iohw_error *err);

/* Number of spatial positions of q's kernel (product over axes). */
int64_t iohw__fault_taps(const iohw_problem *q);

/* The model's result: canonical y[N][C_out][O...] (malloc'd, doubles). */
int iohw__fault_model(fault_work *fw, double **y, iohw_error *err);

/* The oracle core on q (canonical inputs, no bias): malloc'd full product
 * [N][C_out][F...]. */
int iohw__fault_full(const iohw_problem *q, const double *x, const double *w,
                     double **full, iohw_error *err);

/* Canonical doubles [N][C_out][O...] -> y in the data layout and dtype
 * (rounded to nearest). */
int iohw__fault_store_canonical(const iohw_problem *p, const double *yc,
                                void *y, iohw_error *err);

/* Element count of the problem's y and the dtype's size in bytes. */
int64_t iohw__fault_y_count(const iohw_problem *p);
size_t iohw__fault_elem_size(const iohw_problem *p);

/* --- numbers: rounding modes and per-term sums (fault_numbers.c) ----- */

/* Rounding of a double to a dtype's grid (precision and exponent range of
 * the dtype): to nearest with ties to even, ties away from zero, or
 * toward zero.  Beyond the largest finite value: Inf (toward zero: the
 * largest finite value), or the largest finite value when saturate.
 * NaN, Inf and zeros are returned as they are. */
enum { IOHW__ROUND_EVEN, IOHW__ROUND_AWAY, IOHW__ROUND_TRUNC };
double iohw__fault_round(iohw_dtype dt, double v, int mode, int saturate);

/* v, or a zero of v's sign when v is nonzero and below the smallest
 * normal of dt (flush-to-zero, denormals-are-zero). */
double iohw__fault_flush(iohw_dtype dt, double v);

/* acc + x * w as a buggy backend adds one term (p: the problem). */
typedef double (*fault_add)(const iohw_problem *p, double acc, double x,
                            double w);
/* The value a buggy backend stores for the exact result v. */
typedef double (*fault_rounding)(iohw_dtype dt, double v);

/* The sum of the definition, term by term in the oracle's order
 * (bias, then c ascending, then the tap in row-major order), every term
 * added by `add`; the bias enters as add(p, 0, bias, 1).  Canonical
 * y[N][C_out][O...] (malloc'd).  A plain loop over the definition, for
 * faults that act on single products (the model cannot). */
int iohw__fault_terms(fault_work *fw, fault_add add, double **y,
                      iohw_error *err);

/* A compute hook's body: the work set up, the result summed by `add`
 * (NULL: the model, iohw__fault_model) and stored through `rounding`
 * (NULL: to nearest). */
int iohw__fault_compute(const iohw_problem *p, const void *x, const void *w,
                        const void *bias, void *y, fault_add add,
                        fault_rounding rounding, iohw_error *err);

/* Never returns: sleeps (like a deadlock, so that a stuck worker does not
 * steal a core from the rest of the run). */
void iohw__fault_sleep_forever(void);

#endif
