/*
 * oracle/oracle.c - the oracle on tensors in a problem's layouts and dtype.
 *
 *   1. validate the problem and the arguments;
 *   2. convert x, w and bias to double (exact for every dtype) and permute
 *      x and w from their layouts into the canonical orders
 *      x[N][C_in][L...] and w[C_in][Mg][K...];
 *   3. run the core, the definition or the tuned kernel (method;
 *      double-double for f64);
 *   4. permute y_f64 and err_bound into the data layout (C = C_out) and
 *      round y_f64 to the dtype (to nearest, once) for y;
 *   5. terms_max.
 *
 * Arguments: p (validated here), x and w (dense, in p's layouts and dtype),
 * bias ([C_out] in the dtype; needed when p->has_bias, ignored otherwise),
 * method and threads (see oracle.h), r (the result, zeroed first and
 * left zeroed on failure), err.
 */
#include "oracle/oracle.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "oracle/dtype.h"
#include "oracle/layout.h"
#include "oracle/problem.h"
#include "oracle/quant_problem.h"

void iohw_oracle_result_free(iohw_oracle_result *r)
{
    if (r == NULL)
        return;
    free(r->y_f64);
    free(r->err_bound);
    free(r->y);
    memset(r, 0, sizeof *r);
}

/* 1 when a layout's memory order is the canonical order (axes of extent
 * 1 aside), so that converting needs no permutation. */
static int is_canonical(const iohw_layout_map *m)
{
    int64_t stride = 1;
    for (int a = m->ncanon - 1; a >= 0; a--) {
        if (m->canon_shape[a] > 1 && m->canon_stride[a] != stride)
            return 0;
        stride *= m->canon_shape[a];
    }
    return 1;
}

/* Tensor in dtype and layout -> canonical double.  tmp holds count doubles
 * (unused when the layout is canonical). */
static void to_canonical(const iohw_layout_map *m, iohw_dtype dt,
                         const void *src, double *tmp, double *dst)
{
    if (is_canonical(m)) {
        iohw_dtype_to_double(dt, src, dst, (size_t)m->count);
        return;
    }
    iohw_dtype_to_double(dt, src, tmp, (size_t)m->count);
    iohw_layout_to_canonical(m, sizeof(double), tmp, dst);
}

int iohw_oracle_method_resolve(iohw_oracle_method m, iohw_oracle_method *out,
                               iohw_error *err)
{
    const char *isa = getenv(IOHW_ORACLE_ISA_ENV);
    if (isa != NULL && isa[0] != '\0' && strcmp(isa, "avx2") != 0 && strcmp(isa, "none") != 0)
        return iohw_error_set(err, IOHW_ORACLE_ISA_ENV "='%.64s': expected 'avx2' or "
                              "'none' (or unset)", isa);
    if (m == IOHW_ORACLE_FAST || m == IOHW_ORACLE_DEFINITION) {
        *out = m;
        return 0;
    }
    if (m != IOHW_ORACLE_FROM_ENV)
        return iohw_error_set(err, "method %d is not an iohw_oracle_method", (int)m);
    const char *v = getenv(IOHW_ORACLE_ENV);
    if (v == NULL || v[0] == '\0' || strcmp(v, "fast") == 0)
        *out = IOHW_ORACLE_FAST;
    else if (strcmp(v, "definition") == 0)
        *out = IOHW_ORACLE_DEFINITION;
    else
        return iohw_error_set(err, IOHW_ORACLE_ENV "='%.64s': expected "
                              "'definition' or 'fast'", v);
    return 0;
}

/* The core by method (resolved), threads for the tuned kernel only. */
static int core(iohw_oracle_method m, const iohw_problem *p, const double *x,
                const double *w, const double *bias, int dd, int threads,
                double *y, double *eb, iohw_error *err)
{
    if (iohw_oracle_method_resolve(m, &m, err) != 0)
        return -1;
    if (m == IOHW_ORACLE_DEFINITION)
        return iohw_conv_transpose_def(p, x, w, bias, dd, y, eb, err);
    return iohw_conv_transpose_fast(p, x, w, bias, dd, threads, y, eb, err);
}

int iohw_conv_transpose_ref(const iohw_problem *p, const double *x,
                            const double *w, const double *bias, int dd,
                            int threads, double *y, double *eb,
                            iohw_error *err)
{
    return core(IOHW_ORACLE_FROM_ENV, p, x, w, bias, dd, threads, y, eb, err);
}

int iohw_oracle_run(const iohw_problem *p, const void *x, const void *w,
                    const void *bias, int threads, iohw_oracle_result *r,
                    iohw_error *err)
{
    return iohw_oracle_run_method(p, x, w, bias, IOHW_ORACLE_FROM_ENV, threads,
                                  r, err);
}

/* Step 1: the arguments in order, then the three layout maps. */
static int check_args(const iohw_problem *p, const void *x, const void *w,
                      const void *bias, iohw_layout_map *xm, iohw_layout_map *wm,
                      iohw_layout_map *ym, iohw_error *err)
{
    if (p == NULL)
        return iohw_error_set(err, "oracle: problem p is NULL");
    if (iohw_problem_validate(p, err) != 0)
        return iohw_error_prefix(err, "oracle: problem p");
    if (iohw_problem_is_quant(p))
        return iohw_error_set(err, "oracle: a quantized problem (dtype %s): "
                              "iohw_quant_run computes it",
                              iohw_dtype_name(p->dtype));
    if (iohw_problem_is_backward(p))
        return iohw_error_set(err, "oracle: a backward problem (%s): "
                              "iohw_oracle_run_inputs computes it",
                              iohw_direction_name(p));
    if (x == NULL)
        return iohw_error_set(err, "oracle: x is NULL");
    if (w == NULL)
        return iohw_error_set(err, "oracle: w is NULL");
    if (p->has_bias && bias == NULL)
        return iohw_error_set(err, "oracle: bias is NULL but the problem has a bias");
    if (iohw_layout_data_map(p, 0, xm, err) != 0)
        return iohw_error_prefix(err, "oracle: x layout");
    if (iohw_layout_weight_map(p, wm, err) != 0)
        return iohw_error_prefix(err, "oracle: w layout");
    if (iohw_layout_data_map(p, 1, ym, err) != 0)
        return iohw_error_prefix(err, "oracle: y layout");
    return 0;
}

/* The canonical-order doubles the core works on.  When y's layout is
 * canonical the core writes the results in place (y and eb are NULL);
 * without any permutation of x or w there is no scratch tmp. */
typedef struct canon_buffers {
    double *x, *w, *bias, *y, *eb, *tmp;
} canon_buffers;

static void buffers_free(canon_buffers *b)
{
    free(b->x);
    free(b->w);
    free(b->bias);
    free(b->y);
    free(b->eb);
    free(b->tmp);
}

/* malloc, asking Linux to back the whole 2 MiB pages inside a large block
 * with huge pages: the outputs are written once, and their first touch in
 * 4 KiB pages (thousands of page faults) cost more than the sums on large
 * problems.  The advice changes no value and may be ignored. */
static void *big_malloc(size_t n)
{
    void *m = malloc(n);
#if defined(MADV_HUGEPAGE)
    const uintptr_t huge = (uintptr_t)2 << 20;
    if (m != NULL && n >= 2 * huge) {
        const uintptr_t lo = ((uintptr_t)m + huge - 1) & ~(huge - 1);
        const uintptr_t hi = ((uintptr_t)m + n) & ~(huge - 1);
        if (hi > lo)
            (void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
    }
#endif
    return m;
}

/* Allocates the buffers and r's three outputs; on failure says how large
 * the tensors were (the caller frees what was allocated). */
static int buffers_alloc(const iohw_problem *p, const iohw_layout_map *xm,
                         const iohw_layout_map *wm, const iohw_layout_map *ym,
                         canon_buffers *b, iohw_oracle_result *r, iohw_error *err)
{
    const size_t nx = (size_t)xm->count;
    const size_t nw = (size_t)wm->count;
    const size_t ny = (size_t)ym->count;
    const size_t nb = p->has_bias ? (size_t)p->out_channels : 0;
    const size_t ntmp = nx > nw ? nx : nw;
    const int y_canon = is_canonical(ym);
    const int need_tmp = !is_canonical(xm) || !is_canonical(wm);

    r->y_f64 = big_malloc(ny * sizeof *r->y_f64);
    r->err_bound = big_malloc(ny * sizeof *r->err_bound);
    r->y = big_malloc(ny * iohw_dtype_size(p->dtype));
    memset(b, 0, sizeof *b);
    b->x = malloc(nx * sizeof *b->x);
    b->w = malloc(nw * sizeof *b->w);
    b->bias = nb > 0 ? malloc(nb * sizeof *b->bias) : NULL;
    b->y = y_canon ? NULL : big_malloc(ny * sizeof *b->y);
    b->eb = y_canon ? NULL : big_malloc(ny * sizeof *b->eb);
    b->tmp = need_tmp ? malloc(ntmp * sizeof *b->tmp) : NULL;
    if (b->x == NULL || b->w == NULL || (nb > 0 && b->bias == NULL) ||
        (!y_canon && (b->y == NULL || b->eb == NULL)) || (need_tmp && b->tmp == NULL) ||
        r->y_f64 == NULL || r->err_bound == NULL || r->y == NULL)
        return iohw_error_set(err, "oracle: out of memory (x %zu, w %zu, y %zu elements)",
                              nx, nw, ny);
    return 0;
}

int iohw_oracle_run_method(const iohw_problem *p, const void *x,
                           const void *w, const void *bias,
                           iohw_oracle_method method, int threads,
                           iohw_oracle_result *r, iohw_error *err)
{
    iohw_layout_map xm, wm, ym;
    canon_buffers b;

    /* Test the input arguments. */
    if (r == NULL)
        return iohw_error_set(err, "oracle: result r is NULL");
    memset(r, 0, sizeof *r);
    if (check_args(p, x, w, bias, &xm, &wm, &ym, err) != 0)
        return -1;
    if (buffers_alloc(p, &xm, &wm, &ym, &b, r, err) != 0) {
        buffers_free(&b);
        iohw_oracle_result_free(r);
        return -1;
    }
    const iohw_dtype dt = p->dtype;
    const size_t ny = (size_t)ym.count;
    int rc = -1;

    /* Inputs to canonical double. */
    to_canonical(&xm, dt, x, b.tmp, b.x);
    to_canonical(&wm, dt, w, b.tmp, b.w);
    if (b.bias != NULL)
        iohw_dtype_to_double(dt, bias, b.bias, (size_t)p->out_channels);

    /* The core, in place when y's layout is canonical. */
    double *ycore = b.y != NULL ? b.y : r->y_f64;
    double *ecore = b.eb != NULL ? b.eb : r->err_bound;
    if (core(method, p, b.x, b.w, b.bias, dt == IOHW_F64 ? 1 : 0, threads, ycore,
             ecore, err) != 0) {
        iohw_error_prefix(err, "oracle");
        goto done;
    }

    /* Outputs to the data layout; y rounded to the dtype. */
    if (b.y != NULL) {
        iohw_layout_from_canonical(&ym, sizeof(double), b.y, r->y_f64);
        iohw_layout_from_canonical(&ym, sizeof(double), b.eb, r->err_bound);
    }
    iohw_dtype_from_double(dt, r->y_f64, r->y, ny);
    if (iohw_oracle_terms(p, &r->terms_max, err) != 0) {
        iohw_error_prefix(err, "oracle");
        goto done;
    }
    rc = 0;

done:
    buffers_free(&b);
    if (rc != 0)
        iohw_oracle_result_free(r);
    return rc;
}
