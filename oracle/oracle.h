/*
 * oracle/oracle.h - the reference transposed convolution (strict IOHW,
 * specification section 1 in docs/SPEC.md).
 *
 * y[n, g*Mg + m, o] = bias[g*Mg + m]
 *     + sum_{c < Cg} sum_{(i,k): i*S + k*D - P = o} x[n, g*Cg + c, i] * w[g*Cg + c, m, k]
 *
 * Every product is formed exactly (for f64 inputs with a two-product) and the
 * terms of each output element are summed in one fixed order (c, then k in
 * row-major order, then i in row-major order) in extended precision: double
 * for f32, f16 and bf16 inputs, double-double for f64.  The result does not
 * depend on the number of threads.  err_bound = |bias| + sum |x*w| over the
 * same terms; terms_max = the largest number of products in any element.
 */
#ifndef IOHW_ORACLE_H
#define IOHW_ORACLE_H

#include <stdint.h>

#include "iohw/backend.h"
#include "oracle/error.h"

typedef struct iohw_oracle_result {
    double *y_f64;      /* y in the data layout (C = C_out), as a double */
    double *err_bound;  /* same shape */
    void *y;            /* y_f64 rounded to nearest in the problem's dtype */
    int64_t terms_max;
} iohw_oracle_result;

/* Which implementation computes the sums.  Both give the same bits (a test
 * proves it); the definition is the one to read, the tuned kernel the one
 * to run.  IOHW_ORACLE_FROM_ENV reads the environment variable IOHW_ORACLE:
 * "definition" picks the definition, unset, "" or "fast" the tuned kernel,
 * anything else is an error. */
typedef enum iohw_oracle_method {
    IOHW_ORACLE_FROM_ENV = 0,
    IOHW_ORACLE_FAST = 1,
    IOHW_ORACLE_DEFINITION = 2
} iohw_oracle_method;

#define IOHW_ORACLE_ENV "IOHW_ORACLE"
/* Caps the vector instructions of the tuned kernel: "avx2" leaves AVX-512
 * out, "none" runs its scalar scatter path; unset or "" uses what the CPU
 * has.  Every choice gives the same bits; the tests prove each path. */
#define IOHW_ORACLE_ISA_ENV "IOHW_ORACLE_ISA"

/* Resolves IOHW_ORACLE_FROM_ENV into FAST or DEFINITION (other methods pass
 * through).  Fails naming the variable and its value when it is neither, or
 * when IOHW_ORACLE_ISA is set to anything but "", "avx2" or "none". */
int iohw_oracle_method_resolve(iohw_oracle_method m, iohw_oracle_method *out,
                               iohw_error *err);

/* Runs the oracle on tensors in the problem's layouts and dtype (bias may be
 * NULL when has_bias is 0).  Allocates the three outputs; free them with
 * iohw_oracle_result_free.  threads <= 1 runs on the calling thread; more
 * splits independent output planes between threads without changing a bit
 * (the definition always runs on the calling thread).  Fails (with the
 * reason) on an invalid problem or when memory runs out. */
int iohw_oracle_run_method(const iohw_problem *p, const void *x,
                           const void *w, const void *bias,
                           iohw_oracle_method method, int threads,
                           iohw_oracle_result *r, iohw_error *err);

/* iohw_oracle_run_method with IOHW_ORACLE_FROM_ENV. */
int iohw_oracle_run(const iohw_problem *p, const void *x, const void *w,
                    const void *bias, int threads, iohw_oracle_result *r,
                    iohw_error *err);
void iohw_oracle_result_free(iohw_oracle_result *r);

/* The core on canonical double tensors: x[N][C_in][L...], w[C_in][Mg][K...],
 * bias[C_out] or NULL, y and eb [N][C_out][O...].  dd = 1 sums in
 * double-double (for f64 inputs), 0 in double.  y and eb are overwritten.
 *   iohw_conv_transpose_def   the definition (conv_transpose.c): plain loops;
 *   iohw_conv_transpose_fast  the tuned kernel (conv_transpose_fast.c);
 *   iohw_conv_transpose_ref   the one IOHW_ORACLE picks (fast by default). */
int iohw_conv_transpose_def(const iohw_problem *p, const double *x,
                            const double *w, const double *bias, int dd,
                            double *y, double *eb, iohw_error *err);
int iohw_conv_transpose_fast(const iohw_problem *p, const double *x,
                             const double *w, const double *bias, int dd,
                             int threads, double *y, double *eb,
                             iohw_error *err);
int iohw_conv_transpose_ref(const iohw_problem *p, const double *x,
                            const double *w, const double *bias, int dd,
                            int threads, double *y, double *eb,
                            iohw_error *err);

/* --- the backward directions (specification section 13) ---------------- */

/* The inputs of any direction, in the problem's layouts and dtype:
 * forward x, w, bias; BWD_D dy, w; BWD_W x, dy.  Unused members NULL. */
typedef struct iohw_oracle_inputs {
    const void *x, *w, *bias, *dy;
} iohw_oracle_inputs;

/* The oracle of p's direction: forward as iohw_oracle_run_method; BWD_D
 * computes dx, BWD_W dw followed by db (when has_bias).  r's three
 * outputs hold iohw_problem_out_count(p) elements: dx in the data layout
 * (C = C_in), dw in the weight layout then db [C_out]; terms_max is the
 * largest number of products of any output element of the direction. */
int iohw_oracle_run_inputs(const iohw_problem *p, const iohw_oracle_inputs *in,
                           iohw_oracle_method method, int threads,
                           iohw_oracle_result *r, iohw_error *err);

/* The backward definitions on canonical double tensors (conv_backward.c),
 * summed as iohw_conv_transpose_def sums (dd, exact products, one fixed
 * order) with the bound eb = sum of |terms| of each element:
 *   dy[N][C_out][O...], w[C_in][Mg][K...], x[N][C_in][L...];
 *   dx, eb: [N][C_in][L...];
 *   dw, ebw: [C_in][Mg][K...]; db, ebb: [C_out] (ignored, may be NULL,
 *   without bias). */
int iohw_conv_transpose_bwd_data_def(const iohw_problem *p, const double *dy,
                                     const double *w, int dd, double *dx,
                                     double *eb, iohw_error *err);
int iohw_conv_transpose_bwd_weights_def(const iohw_problem *p,
                                        const double *x, const double *dy,
                                        int dd, double *dw, double *ebw,
                                        double *db, double *ebb,
                                        iohw_error *err);

/* The largest number of products any output element sums (terms_max) into
 * *terms_max; for a backward problem, its direction's (dx's, or the larger
 * of dw's and db's: specification section 13).  0, or -1 with the reason:
 * an invalid problem, or no memory for the per-axis counts (8 bytes per
 * output position of one axis). */
int iohw_oracle_terms(const iohw_problem *p, int64_t *terms_max, iohw_error *err);

/* The same number, or -1 where a caller has no use for the reason. */
int64_t iohw_oracle_terms_max(const iohw_problem *p);

#endif
