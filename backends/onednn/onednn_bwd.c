/*
 * backends/onednn/onednn_bwd.c - oneDNN's deconvolution backward_data and
 * backward_weights primitives behind run_bwd_data and run_bwd_weights
 * (specification section 13).
 *
 * Correspondence: as onednn_md.c for the forward problem, with
 *   diff_src      dx (x's descriptor), diff_dst dy (y's descriptor),
 *   diff_weights  dw (w's descriptor), diff_bias db (bias's descriptor).
 * Each backward primitive descriptor is created with the forward one
 * (forward_training, same "any" descriptors) as its hint, as oneDNN
 * requires.  What is claimed is what oneDNN creates a primitive descriptor
 * for on this CPU: f32, and bf16 / f16 only where the CPU has the kernels;
 * never f64.  output_padding is inferred from dy's dims, as in the forward
 * direction (below the stride only).
 *
 * As in onednn.c, oneDNN picks its formats; the harness's tensors are
 * reordered in, the outputs reordered back.
 */
#include <string.h>

#include <oneapi/dnnl/dnnl.h>
#include <oneapi/dnnl/dnnl_debug.h>
#ifdef IOHW_ONEDNN_OPENMP
#include <omp.h>
#endif

#include "backends/onednn/onednn.h"
#include "backends/skeleton_check.h"
#include "oracle/problem.h"

/* The backward primitive descriptor of p's direction, with its forward
 * hint.  Returns the oneDNN status; err says which call refused. */
static dnnl_status_t bwd_pd(const iohw_problem *p, const onednn_mds *m,
                            dnnl_engine_t engine, dnnl_primitive_desc_t *pd,
                            iohw_error *err)
{
    const int R = (int)p->rank;
    const int bias = p->direction == IOHW_DIR_BWD_W && p->has_bias;
    dnnl_dims_t strides, dilates, pad_l, pad_r;
    dnnl_deconvolution_desc_t fd, bd;
    dnnl_primitive_desc_t hint = NULL;
    dnnl_status_t st;

    *pd = NULL;
    for (int a = 0; a < R; a++) {
        strides[a] = p->stride[a];
        dilates[a] = p->dilation[a] - 1; /* oneDNN: 0 means dense */
        pad_l[a] = p->pad_begin[a];
        pad_r[a] = p->pad_end[a];
    }
    st = dnnl_dilated_deconvolution_forward_desc_init(
        &fd, dnnl_forward_training, dnnl_deconvolution_direct, &m->x_any,
        &m->w_any, bias ? &m->bias_any : NULL, &m->y_any, strides, dilates,
        pad_l, pad_r);
    if (st == dnnl_success)
        st = dnnl_primitive_desc_create(&hint, &fd, NULL, engine, NULL);
    if (st != dnnl_success) {
        iohw_error_set(err, "oneDNN has no %s deconvolution forward_training "
                       "(the backward hint) for this problem on this CPU: %s",
                       dnnl_dt2str(m->x.data_type), dnnl_status2str(st));
        return st;
    }
    if (p->direction == IOHW_DIR_BWD_D)
        st = dnnl_dilated_deconvolution_backward_data_desc_init(
            &bd, dnnl_deconvolution_direct, &m->x_any, &m->w_any, &m->y_any,
            strides, dilates, pad_l, pad_r);
    else
        st = dnnl_dilated_deconvolution_backward_weights_desc_init(
            &bd, dnnl_deconvolution_direct, &m->x_any, &m->w_any,
            bias ? &m->bias_any : NULL, &m->y_any, strides, dilates, pad_l,
            pad_r);
    if (st == dnnl_success)
        st = dnnl_primitive_desc_create(pd, &bd, NULL, engine, hint);
    if (st != dnnl_success) {
        *pd = NULL;
        iohw_error_set(err, "oneDNN has no %s deconvolution %s implementation "
                       "for this problem on this CPU: %s",
                       dnnl_dt2str(m->x.data_type),
                       p->direction == IOHW_DIR_BWD_D ? "backward_data"
                                                      : "backward_weights",
                       dnnl_status2str(st));
    }
    dnnl_primitive_desc_destroy(hint);
    return st;
}

int iohw__onednn_bwd_supports(onednn_ctx *c, const iohw_problem *p)
{
    onednn_mds m;
    dnnl_primitive_desc_t pd = NULL;
    if (iohw__onednn_mds(p, &m, &c->err) != 0 ||
        bwd_pd(p, &m, c->engine, &pd, &c->err) != dnnl_success)
        return IOHW_UNSUPPORTED;
    dnnl_primitive_desc_destroy(pd);
    c->err.msg[0] = '\0';
    return IOHW_OK;
}

/* The problem and the direction, for an entry point named fn. */
static int check_args(onednn_ctx *c, const iohw_problem *p, int dir,
                      const char *fn)
{
    if (c == NULL)
        return IOHW_BACKEND_ERROR;
    if (skeleton_check(p, &c->err) != 0)
        return IOHW_INVALID_PROBLEM;
    if (p->direction != dir) {
        iohw_error_set(&c->err, "%s: the problem's direction is %s", fn,
                       iohw_direction_name(p));
        return IOHW_INVALID_PROBLEM;
    }
#ifdef IOHW_ONEDNN_OPENMP
    omp_set_num_threads(1);
#endif
    return IOHW_OK;
}

/* Executes r's primitive on the n bound slots, then reorders the outputs
 * (out, a mask of T_* bits) back into the harness's buffers. */
static int execute(onednn_ctx *c, onednn_run *r, const dnnl_exec_arg_t *args,
                   int n, unsigned out)
{
    dnnl_status_t st = dnnl_primitive_execute(r->prim_deconv, c->stream, n,
                                              args);
    if (st == dnnl_success)
        st = dnnl_stream_wait(c->stream);
    if (st != dnnl_success)
        return iohw__onednn_fail(&c->err, "deconvolution backward execution",
                                 st);
    for (int t = 0; t < 4; t++)
        if ((out >> t & 1u) && r->prim[t] != r->user[t] &&
            iohw__onednn_reorder(c, r->prim[t], r->user[t]) != 0)
            return -1;
    return 0;
}

/* The primitive descriptor and primitive of a run. */
static int make_primitive(onednn_ctx *c, const iohw_problem *p,
                          onednn_mds *m, onednn_run *r)
{
    dnnl_status_t st;
    if (iohw__onednn_mds(p, m, &c->err) != 0 ||
        bwd_pd(p, m, c->engine, &r->pd, &c->err) != dnnl_success)
        return -1;
    if ((st = dnnl_primitive_create(&r->prim_deconv, r->pd)) != dnnl_success)
        return iohw__onednn_fail(&c->err, "dnnl_primitive_create "
                                 "(deconvolution backward)", st);
    return 0;
}

static const dnnl_memory_desc_t *want(const onednn_run *r, dnnl_query_t q)
{
    return dnnl_primitive_desc_query_md(r->pd, q, 0);
}

int iohw__onednn_run_bwd_data(void *ctx, const iohw_problem *p,
                              const void *dy, const void *w, void *dx)
{
    onednn_ctx *c = ctx;
    onednn_mds m;
    onednn_run r;
    int rc = check_args(c, p, IOHW_DIR_BWD_D, "run_bwd_data");
    if (rc != IOHW_OK)
        return rc;
    if (dy == NULL || w == NULL || dx == NULL) {
        iohw_error_set(&c->err, "run_bwd_data: %s is NULL",
                       dy == NULL ? "dy" : w == NULL ? "w" : "dx");
        return IOHW_INVALID_PROBLEM;
    }
    memset(&r, 0, sizeof r);
    rc = IOHW_BACKEND_ERROR;
    if (make_primitive(c, p, &m, &r) != 0 ||
        iohw__onednn_bind(c, &r, T_Y, &m.y, want(&r, dnnl_query_diff_dst_md),
                          dy, 1) != 0 ||
        iohw__onednn_bind(c, &r, T_W, &m.w, want(&r, dnnl_query_weights_md),
                          w, 1) != 0 ||
        iohw__onednn_bind(c, &r, T_X, &m.x, want(&r, dnnl_query_diff_src_md),
                          dx, 0) != 0)
        goto done;
    dnnl_exec_arg_t args[3] = {{DNNL_ARG_DIFF_DST, r.prim[T_Y]},
                               {DNNL_ARG_WEIGHTS, r.prim[T_W]},
                               {DNNL_ARG_DIFF_SRC, r.prim[T_X]}};
    if (execute(c, &r, args, 3, 1u << T_X) != 0)
        goto done;
    c->err.msg[0] = '\0';
    rc = IOHW_OK;
done:
    iohw__onednn_run_release(&r);
    return rc;
}

int iohw__onednn_run_bwd_weights(void *ctx, const iohw_problem *p,
                                 const void *x, const void *dy, void *dw,
                                 void *db)
{
    onednn_ctx *c = ctx;
    onednn_mds m;
    onednn_run r;
    int rc = check_args(c, p, IOHW_DIR_BWD_W, "run_bwd_weights");
    if (rc != IOHW_OK)
        return rc;
    if (x == NULL || dy == NULL || dw == NULL || (p->has_bias && db == NULL)) {
        iohw_error_set(&c->err, "run_bwd_weights: %s is NULL",
                       x == NULL ? "x" : dy == NULL ? "dy"
                                     : dw == NULL   ? "dw" : "db");
        return IOHW_INVALID_PROBLEM;
    }
    memset(&r, 0, sizeof r);
    rc = IOHW_BACKEND_ERROR;
    if (make_primitive(c, p, &m, &r) != 0 ||
        iohw__onednn_bind(c, &r, T_X, &m.x, want(&r, dnnl_query_src_md), x,
                          1) != 0 ||
        iohw__onednn_bind(c, &r, T_Y, &m.y, want(&r, dnnl_query_diff_dst_md),
                          dy, 1) != 0 ||
        iohw__onednn_bind(c, &r, T_W, &m.w,
                          want(&r, dnnl_query_diff_weights_md), dw, 0) != 0)
        goto done;
    if (p->has_bias &&
        iohw__onednn_bind(c, &r, T_BIAS, &m.bias,
                          dnnl_primitive_desc_query_md(
                              r.pd, dnnl_query_diff_weights_md, 1),
                          db, 0) != 0)
        goto done;
    dnnl_exec_arg_t args[4] = {{DNNL_ARG_SRC, r.prim[T_X]},
                               {DNNL_ARG_DIFF_DST, r.prim[T_Y]},
                               {DNNL_ARG_DIFF_WEIGHTS, r.prim[T_W]},
                               {DNNL_ARG_DIFF_BIAS, r.prim[T_BIAS]}};
    unsigned out = 1u << T_W | (p->has_bias ? 1u << T_BIAS : 0u);
    if (execute(c, &r, args, p->has_bias ? 4 : 3, out) != 0)
        goto done;
    c->err.msg[0] = '\0';
    rc = IOHW_OK;
done:
    iohw__onednn_run_release(&r);
    return rc;
}
