/*
 * oracle/oracle.h - the reference transposed convolution (strict IOHW).
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

/* Runs the oracle on tensors in the problem's layouts and dtype (bias may be
 * NULL when has_bias is 0).  Allocates the three outputs; free them with
 * iohw_oracle_result_free.  threads <= 1 runs on the calling thread; more
 * splits independent output planes between threads without changing a bit.
 * Fails (with the reason) on an invalid problem or when memory runs out. */
int iohw_oracle_run(const iohw_problem *p, const void *x, const void *w,
                    const void *bias, int threads, iohw_oracle_result *r,
                    iohw_error *err);
void iohw_oracle_result_free(iohw_oracle_result *r);

/* The core on canonical double tensors: x[N][C_in][L...], w[C_in][Mg][K...],
 * bias[C_out] or NULL, y and eb [N][C_out][O...].  dd = 1 sums in
 * double-double (for f64 inputs), 0 in double.  y and eb are overwritten. */
int iohw_conv_transpose_ref(const iohw_problem *p, const double *x,
                            const double *w, const double *bias, int dd,
                            int threads, double *y, double *eb,
                            iohw_error *err);

/* The largest number of products any output element sums. */
int64_t iohw_oracle_terms_max(const iohw_problem *p);

#endif
