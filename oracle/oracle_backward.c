/*
 * oracle/oracle_backward.c - the oracle of any direction on tensors in a
 * problem's layouts and dtype (specification section 13), and the
 * backward directions' terms_max.
 *
 * Forward: iohw_oracle_run_method.  Backward:
 *   1. validate the problem and the arguments;
 *   2. convert the two inputs to double (exact for every float dtype) and
 *      permute them from their layouts into the canonical orders
 *      (BWD_D: dy with the data map, C = C_out, as y; w.  BWD_W: x; dy);
 *   3. run the definition (conv_backward.c; double-double for f64).  Both
 *      methods, FAST and DEFINITION, run the definition: the backward
 *      directions have no tuned kernel, and threads is not used;
 *   4. permute the output and its bound into their layouts (dx: the data
 *      layout with C = C_in, as x; dw: the weight layout, db appended after
 *      dw) and round the output to the dtype (to nearest, once);
 *   5. terms_max of the direction.
 */
#include "oracle/oracle.h"
#include "oracle/conv_transpose_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "oracle/dtype.h"
#include "oracle/layout.h"
#include "oracle/problem.h"

/* The backward problem's tensors: two inputs and the output (with db
 * appended for BWD_W with bias, nb elements). */
typedef struct bwd_tensors {
    iohw_layout_map in_map[2], out_map;
    const void *in[2];
    int64_t nb;
} bwd_tensors;

/* Step 1: the arguments in order, then the layout maps. */
static int check_backward(const iohw_problem *p, const iohw_oracle_inputs *in,
                          bwd_tensors *t, iohw_error *err)
{
    const int data = p->direction == IOHW_DIR_BWD_D;
    const char *name0 = data ? "dy" : "x", *name1 = data ? "w" : "dy";
    t->in[0] = data ? in->dy : in->x;
    t->in[1] = data ? in->w : in->dy;
    t->nb = data ? 0 : iohw_problem_bias_count(p);
    if (t->in[0] == NULL)
        return iohw_error_set(err, "oracle %s: %s is NULL", iohw_direction_name(p), name0);
    if (t->in[1] == NULL)
        return iohw_error_set(err, "oracle %s: %s is NULL", iohw_direction_name(p), name1);
    int rc;
    if (data)
        rc = iohw_layout_data_map(p, 1, &t->in_map[0], err) != 0 ? -1
           : iohw_layout_weight_map(p, &t->in_map[1], err) != 0 ? -1
           : iohw_layout_data_map(p, 0, &t->out_map, err);
    else
        rc = iohw_layout_data_map(p, 0, &t->in_map[0], err) != 0 ? -1
           : iohw_layout_data_map(p, 1, &t->in_map[1], err) != 0 ? -1
           : iohw_layout_weight_map(p, &t->out_map, err);
    return rc != 0 ? iohw_error_prefix(err, "oracle %s: layout", iohw_direction_name(p)) : 0;
}

/* The canonical doubles: the two inputs, the output and its bound (out_map
 * elements then nb), and a scratch of the larger input's size. */
typedef struct bwd_buffers {
    double *in[2], *out, *eb, *tmp;
} bwd_buffers;

static void bwd_buffers_free(bwd_buffers *b)
{
    free(b->in[0]);
    free(b->in[1]);
    free(b->out);
    free(b->eb);
    free(b->tmp);
}

static int bwd_alloc(const iohw_problem *p, const bwd_tensors *t, bwd_buffers *b,
                     iohw_oracle_result *r, iohw_error *err)
{
    const size_t n0 = (size_t)t->in_map[0].count, n1 = (size_t)t->in_map[1].count;
    const size_t nout = (size_t)(t->out_map.count + t->nb);
    memset(b, 0, sizeof *b);
    b->in[0] = malloc(n0 * sizeof(double));
    b->in[1] = malloc(n1 * sizeof(double));
    b->out = malloc(nout * sizeof(double));
    b->eb = malloc(nout * sizeof(double));
    b->tmp = malloc((n0 > n1 ? n0 : n1) * sizeof(double));
    r->y_f64 = malloc(nout * sizeof *r->y_f64);
    r->err_bound = malloc(nout * sizeof *r->err_bound);
    r->y = malloc(nout * iohw_dtype_size(p->dtype));
    if (b->in[0] == NULL || b->in[1] == NULL || b->out == NULL || b->eb == NULL ||
        b->tmp == NULL || r->y_f64 == NULL || r->err_bound == NULL || r->y == NULL)
        return iohw_error_set(err, "oracle %s: out of memory (inputs %zu and %zu, "
                              "output %zu elements)", iohw_direction_name(p), n0, n1, nout);
    return 0;
}

/* Steps 2 to 5, on allocated buffers. */
static int run_backward(const iohw_problem *p, const bwd_tensors *t, bwd_buffers *b,
                        iohw_oracle_result *r, iohw_error *err)
{
    const iohw_dtype dt = p->dtype;
    const int dd = dt == IOHW_F64 ? 1 : 0;
    for (int j = 0; j < 2; j++) {
        iohw_dtype_to_double(dt, t->in[j], b->tmp, (size_t)t->in_map[j].count);
        iohw_layout_to_canonical(&t->in_map[j], sizeof(double), b->tmp, b->in[j]);
    }
    const int64_t nw = t->out_map.count;
    int rc;
    if (p->direction == IOHW_DIR_BWD_D)
        rc = iohw_conv_transpose_bwd_data_def(p, b->in[0], b->in[1], dd, b->out,
                                              b->eb, err);
    else
        rc = iohw_conv_transpose_bwd_weights_def(p, b->in[0], b->in[1], dd, b->out,
                                                 b->eb, b->out + nw, b->eb + nw, err);
    if (rc != 0)
        return iohw_error_prefix(err, "oracle %s", iohw_direction_name(p));
    iohw_layout_from_canonical(&t->out_map, sizeof(double), b->out, r->y_f64);
    iohw_layout_from_canonical(&t->out_map, sizeof(double), b->eb, r->err_bound);
    if (t->nb > 0) {
        memcpy(r->y_f64 + nw, b->out + nw, (size_t)t->nb * sizeof(double));
        memcpy(r->err_bound + nw, b->eb + nw, (size_t)t->nb * sizeof(double));
    }
    iohw_dtype_from_double(dt, r->y_f64, r->y, (size_t)(nw + t->nb));
    if (iohw_oracle_terms(p, &r->terms_max, err) != 0)
        return iohw_error_prefix(err, "oracle %s", iohw_direction_name(p));
    return 0;
}

int iohw_oracle_run_inputs(const iohw_problem *p, const iohw_oracle_inputs *in,
                           iohw_oracle_method method, int threads,
                           iohw_oracle_result *r, iohw_error *err)
{
    /* Test the input arguments. */
    if (r == NULL)
        return iohw_error_set(err, "oracle: result r is NULL");
    memset(r, 0, sizeof *r);
    if (p == NULL)
        return iohw_error_set(err, "oracle: problem p is NULL");
    if (in == NULL)
        return iohw_error_set(err, "oracle: inputs in is NULL");
    if (!iohw_problem_is_backward(p))
        return iohw_oracle_run_method(p, in->x, in->w, in->bias, method, threads, r, err);
    if (iohw_problem_validate(p, err) != 0)
        return iohw_error_prefix(err, "oracle: problem p");
    if (iohw_oracle_method_resolve(method, &method, err) != 0)
        return iohw_error_prefix(err, "oracle");

    bwd_tensors t;
    bwd_buffers b;
    if (check_backward(p, in, &t, err) != 0)
        return -1;
    int rc = bwd_alloc(p, &t, &b, r, err);
    if (rc == 0)
        rc = run_backward(p, &t, &b, r, err);
    bwd_buffers_free(&b);
    if (rc != 0)
        iohw_oracle_result_free(r);
    return rc;
}

/* --- terms_max of the backward directions (specification section 13) --- */

__extension__ typedef __int128 wide;

static wide floor_div(wide a, wide b)
{
    wide q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0)))
        q -= 1;
    return q;
}

/* #{j in [0, n) : 0 <= j*step + shift < O}, step >= 1: an interval of j. */
static int64_t count_reaching(int64_t n, int64_t step, wide shift, int64_t O)
{
    wide lo = -floor_div(shift, step);                 /* ceil(-shift / step) */
    wide hi = floor_div((wide)O - 1 - shift, step);    /* last j inside */
    if (lo < 0)
        lo = 0;
    if (hi > (wide)n - 1)
        hi = (wide)n - 1;
    return hi < lo ? 0 : (int64_t)(hi - lo + 1);
}

/* dx: Mg * prod_a max_{i_a} #{k_a : i_a*S + k_a*D - P in [0, O)};
 * dw: N * prod_a max_{k_a} #{i_a : the same}; db: N * prod_a O_a. */
static int64_t terms_dx(const iohw_problem *p)
{
    int64_t t = p->out_channels / p->groups;
    for (uint32_t a = 0; a < p->rank; a++) {
        int64_t best = 0;
        for (int64_t i = 0; i < p->in_size[a]; i++) {
            const wide shift = (wide)i * p->stride[a] - p->pad_begin[a];
            const int64_t c = count_reaching(p->kernel[a], p->dilation[a], shift,
                                             p->out_size[a]);
            best = c > best ? c : best;
        }
        t *= best;
    }
    return t;
}

static int64_t terms_dw(const iohw_problem *p)
{
    int64_t t = p->batch;
    for (uint32_t a = 0; a < p->rank; a++) {
        int64_t best = 0;
        for (int64_t k = 0; k < p->kernel[a]; k++) {
            const wide shift = (wide)k * p->dilation[a] - p->pad_begin[a];
            const int64_t c = count_reaching(p->in_size[a], p->stride[a], shift,
                                             p->out_size[a]);
            best = c > best ? c : best;
        }
        t *= best;
    }
    return t;
}

int64_t iohw__oracle_terms_backward(const iohw_problem *p)
{
    if (p->direction == IOHW_DIR_BWD_D)
        return terms_dx(p);
    int64_t t = terms_dw(p);
    if (p->has_bias) {
        int64_t db = p->batch;
        for (uint32_t a = 0; a < p->rank; a++)
            db *= p->out_size[a];
        t = db > t ? db : t;
    }
    return t;
}
