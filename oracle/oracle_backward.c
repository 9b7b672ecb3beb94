/*
 * oracle/oracle_backward.c - the oracle of any direction on tensors in the
 * problem's layouts and dtype (iohw_oracle_run_inputs, oracle.h), and the
 * backward directions' terms_max (specification section 13).
 *
 * Forward problems go to iohw_oracle_run_method.  A backward problem:
 *   1. validate the problem and its direction's inputs;
 *   2. convert the inputs to double and permute them into the canonical
 *      orders (dy as y: data layout with C = C_out);
 *   3. run the direction's definition (conv_backward.c; double-double for
 *      f64).  There is no tuned backward kernel: FAST and DEFINITION both
 *      run the definition;
 *   4. permute the outputs into their layouts (dx: data layout with
 *      C = C_in; dw: weight layout; db [C_out] after dw) and round them to
 *      the dtype, once;
 *   5. terms_max of the direction.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "oracle/conv_transpose_internal.h"
#include "oracle/dtype.h"
#include "oracle/layout.h"
#include "oracle/problem.h"

/* The three layout maps a backward problem touches: x (or dx), w (or dw),
 * dy. */
typedef struct bwd_maps {
    iohw_layout_map x, w, y;
} bwd_maps;

static int check_inputs(const iohw_problem *p, const iohw_oracle_inputs *in,
                        bwd_maps *m, iohw_error *err)
{
    if (iohw_problem_validate(p, err) != 0)
        return iohw_error_prefix(err, "oracle: problem p");
    if (in->dy == NULL)
        return iohw_error_set(err, "oracle: %s needs dy, which is NULL",
                              iohw_direction_name(p));
    if (p->direction == IOHW_DIR_BWD_D && in->w == NULL)
        return iohw_error_set(err, "oracle: BWD_D needs w, which is NULL");
    if (p->direction == IOHW_DIR_BWD_W && in->x == NULL)
        return iohw_error_set(err, "oracle: %s needs x, which is NULL",
                              iohw_direction_name(p));
    if (iohw_layout_data_map(p, 0, &m->x, err) != 0)
        return iohw_error_prefix(err, "oracle: x layout");
    if (iohw_layout_weight_map(p, &m->w, err) != 0)
        return iohw_error_prefix(err, "oracle: w layout");
    if (iohw_layout_data_map(p, 1, &m->y, err) != 0)
        return iohw_error_prefix(err, "oracle: dy layout");
    return 0;
}

/* Tensor in the dtype and a layout -> a new canonical double tensor. */
static double *canonical(const iohw_layout_map *m, iohw_dtype dt, const void *src)
{
    double *tmp = malloc((size_t)m->count * sizeof *tmp);
    double *dst = malloc((size_t)m->count * sizeof *dst);
    if (tmp != NULL && dst != NULL) {
        iohw_dtype_to_double(dt, src, tmp, (size_t)m->count);
        iohw_layout_to_canonical(m, sizeof(double), tmp, dst);
    } else {
        free(dst);
        dst = NULL;
    }
    free(tmp);
    return dst;
}

/* The definition's canonical outputs: out, eb hold the direction's
 * out_count elements (BWD_W: dw, then db). */
static int run_definition(const iohw_problem *p, const bwd_maps *m,
                          const iohw_oracle_inputs *in, double *out, double *eb,
                          iohw_error *err)
{
    const iohw_dtype dt = p->dtype;
    const int dd = dt == IOHW_F64;
    double *dy = canonical(&m->y, dt, in->dy);
    double *other = p->direction == IOHW_DIR_BWD_D ? canonical(&m->w, dt, in->w)
                                                   : canonical(&m->x, dt, in->x);
    int rc = -1;
    if (dy == NULL || other == NULL)
        iohw_error_set(err, "oracle: out of memory (dy %lld elements)",
                       (long long)m->y.count);
    else if (p->direction == IOHW_DIR_BWD_D)
        rc = iohw_conv_transpose_bwd_data_def(p, dy, other, dd, out, eb, err);
    else
        rc = iohw_conv_transpose_bwd_weights_def(p, other, dy, dd, out, eb,
                                                 out + m->w.count,
                                                 eb + m->w.count, err);
    free(dy);
    free(other);
    return rc;
}

/* Canonical -> the output's layout, in place (through a copy). */
static int to_layout(const iohw_layout_map *m, double *v, iohw_error *err)
{
    double *tmp = malloc((size_t)m->count * sizeof *tmp);
    if (tmp == NULL)
        return iohw_error_set(err, "oracle: out of memory (%lld elements)",
                              (long long)m->count);
    memcpy(tmp, v, (size_t)m->count * sizeof *tmp);
    iohw_layout_from_canonical(m, sizeof(double), tmp, v);
    free(tmp);
    return 0;
}

static int run_backward(const iohw_problem *p, const iohw_oracle_inputs *in,
                        iohw_oracle_result *r, iohw_error *err)
{
    bwd_maps m;
    if (check_inputs(p, in, &m, err) != 0)
        return -1;
    const int64_t n = iohw_problem_out_count(p);
    const iohw_layout_map *om = p->direction == IOHW_DIR_BWD_D ? &m.x : &m.w;
    r->y_f64 = malloc((size_t)n * sizeof *r->y_f64);
    r->err_bound = malloc((size_t)n * sizeof *r->err_bound);
    r->y = malloc((size_t)n * iohw_dtype_size(p->dtype));
    if (r->y_f64 == NULL || r->err_bound == NULL || r->y == NULL)
        return iohw_error_set(err, "oracle: out of memory (%s output of %lld "
                              "elements)", iohw_direction_name(p), (long long)n);
    if (run_definition(p, &m, in, r->y_f64, r->err_bound, err) != 0 ||
        to_layout(om, r->y_f64, err) != 0 || to_layout(om, r->err_bound, err) != 0)
        return -1;
    iohw_dtype_from_double(p->dtype, r->y_f64, r->y, (size_t)n);
    if (iohw_oracle_terms(p, &r->terms_max, err) != 0)
        return iohw_error_prefix(err, "oracle");
    return 0;
}

int iohw_oracle_run_inputs(const iohw_problem *p, const iohw_oracle_inputs *in,
                           iohw_oracle_method method, int threads,
                           iohw_oracle_result *r, iohw_error *err)
{
    if (r == NULL)
        return iohw_error_set(err, "oracle: result r is NULL");
    memset(r, 0, sizeof *r);
    if (p == NULL || in == NULL)
        return iohw_error_set(err, "oracle: %s is NULL", p == NULL ? "problem p"
                                                                   : "inputs");
    if (!iohw_problem_is_backward(p))
        return iohw_oracle_run_method(p, in->x, in->w, in->bias, method, threads,
                                      r, err);
    iohw_oracle_method resolved;
    if (iohw_oracle_method_resolve(method, &resolved, err) != 0)
        return -1;
    if (run_backward(p, in, r, err) != 0) {
        iohw_oracle_result_free(r);
        return -1;
    }
    return 0;
}

static int64_t floor_div(int64_t a, int64_t b) /* b > 0 */
{
    return a >= 0 ? a / b : -((-a + b - 1) / b);
}

/* How many t in [0, T) put u + t*step (step > 0) inside [0, O). */
static int64_t hits(int64_t u, int64_t step, int64_t T, int64_t O)
{
    int64_t lo = -floor_div(u, step);            /* ceil(-u / step) */
    int64_t hi = floor_div(O - 1 - u, step) + 1;
    if (lo < 0)
        lo = 0;
    if (hi > T)
        hi = T;
    return hi > lo ? hi - lo : 0;
}

/* On one axis, with o = i*S + k*D - P required in [0, O): the largest
 * number of taps k meeting one i (per_input, dx), or of positions i
 * meeting one tap k (dw).  One closed count per i (or k). */
static int64_t axis_most(const iohw_problem *p, int a, int per_input)
{
    const int64_t L = p->in_size[a], K = p->kernel[a], O = p->out_size[a];
    const int64_t S = p->stride[a], D = p->dilation[a], P = p->pad_begin[a];
    int64_t best = 0;
    for (int64_t u = 0; u < (per_input ? L : K); u++) {
        const int64_t c = per_input ? hits(u * S - P, D, K, O)
                                    : hits(u * D - P, S, L, O);
        if (c > best)
            best = c;
    }
    return best;
}

/* terms_max of a validated backward problem (specification section 13). */
int64_t iohw__terms_backward(const iohw_problem *p)
{
    const int R = (int)p->rank;
    if (p->direction == IOHW_DIR_BWD_D) {
        int64_t t = p->out_channels / p->groups;
        for (int a = 0; a < R; a++)
            t *= axis_most(p, a, 1);
        return t;
    }
    int64_t tw = p->batch, tb = p->batch;
    for (int a = 0; a < R; a++) {
        tw *= axis_most(p, a, 0);
        tb *= p->out_size[a];
    }
    return p->has_bias && tb > tw ? tb : tw;
}
