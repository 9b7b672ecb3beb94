/*
 * backends/onednn/onednn.h - the oneDNN adapter's internal interface:
 * memory descriptors translated from the layout letters, and the
 * deconvolution primitive descriptor of a problem.
 */
#ifndef IOHW_ONEDNN_H
#define IOHW_ONEDNN_H

#include <oneapi/dnnl/dnnl.h>

#include "iohw/backend.h"
#include "oracle/error.h"

/* The four tensors twice: as the harness holds them (plain strides taken
 * from the case's layout letters) and as "any" descriptors that let oneDNN
 * pick its own format. */
typedef struct onednn_mds {
    dnnl_memory_desc_t x, w, bias, y;
    dnnl_memory_desc_t x_any, w_any, bias_any, y_any;
} onednn_mds;

/* Fills m for a validated problem; -1 (err set) when oneDNN cannot describe
 * it (an unsupported dtype, a descriptor call failing). */
int iohw__onednn_mds(const iohw_problem *p, onednn_mds *m, iohw_error *err);

/* Creates the deconvolution forward primitive descriptor of p on engine,
 * from m's "any" descriptors, with attr (NULL: none).  Returns the oneDNN status; on failure err
 * says which call refused and why, and *pd is NULL. */
dnnl_status_t iohw__onednn_pd(const iohw_problem *p, const onednn_mds *m,
                              const_dnnl_primitive_attr_t attr,
                              dnnl_engine_t engine, dnnl_primitive_desc_t *pd,
                              iohw_error *err);

/* 0 when oneDNN 2.6's int8 deconvolution can state the quantized problem
 * p (s8 weights, zp_w 0, the scales form with half_even unless y is s32);
 * otherwise -1 with the reason (onednn_quant.c). */
int iohw__onednn_quant_refuse(const iohw_problem *p, iohw_error *err);

/* The attributes of quantized p: zero points of src and dst, output
 * scales M[oc] = s_x * s_w[oc] / s_y from requant (float s_w[], NULL:
 * placeholders for supports()).  On failure *attr is NULL and err says
 * which call refused. */
dnnl_status_t iohw__onednn_quant_attr(const iohw_problem *p,
                                      const void *requant,
                                      dnnl_primitive_attr_t *attr,
                                      iohw_error *err);

/* 0 when dst (the primitive's destination) has the shape oneDNN documents
 * for the problem's deconvolution: N, C_out, and per axis
 * (in - 1) S + (K - 1) (D' + 1) + 1 - pad_l - pad_r plus an output padding
 * below the stride (D' = dilation - 1), equal to p->out_size; otherwise -1
 * with "oneDNN returned [..] where [..] is right". */
int iohw__onednn_check_dst(const iohw_problem *p, const dnnl_memory_desc_t *dst,
                           iohw_error *err);

/* The adapter's context and the memory objects of one run (NULL members
 * are not made yet); tensors are indexed by T_X, T_W, T_BIAS, T_Y (in the
 * backward directions dx, dw, db and dy take their forward twins' slots). */
typedef struct onednn_ctx {
    dnnl_engine_t engine;
    dnnl_stream_t stream;
    iohw_error err;
} onednn_ctx;

/* The memory objects of one run; NULL members are not made yet. */
typedef struct onednn_run {
    dnnl_memory_t user[4];  /* x, w, bias, y over the harness's buffers */
    dnnl_memory_t prim[4];  /* what the primitive reads or writes */
    dnnl_primitive_desc_t pd;
    dnnl_primitive_t prim_deconv;
    dnnl_primitive_attr_t attr;   /* quantized: zero points, scales */
} onednn_run;

enum { T_X, T_W, T_BIAS, T_Y };

/* Records a failing oneDNN call in err; returns -1. */
int iohw__onednn_fail(iohw_error *err, const char *call, dnnl_status_t st);

/* Copies memory `from` into memory `to` (same dims, any two formats). */
int iohw__onednn_reorder(onednn_ctx *c, dnnl_memory_t from, dnnl_memory_t to);

/* Memory objects of tensor t: the harness's buffer (user md) and, when the
 * primitive wants another format (md want), a buffer of oneDNN's own; an
 * input is reordered into it here, an output is left for the caller to
 * reorder back. */
int iohw__onednn_bind(onednn_ctx *c, onednn_run *r, int t,
                      const dnnl_memory_desc_t *user,
                      const dnnl_memory_desc_t *want, const void *buf,
                      int input);

/* Releases what a run made. */
void iohw__onednn_run_release(onednn_run *r);

/* The backward directions (specification section 13, onednn_bwd.c):
 * supports() of a backward problem, and the two entry points. */
int iohw__onednn_bwd_supports(onednn_ctx *c, const iohw_problem *p);
int iohw__onednn_run_bwd_data(void *ctx, const iohw_problem *p,
                              const void *dy, const void *w, void *dx);
int iohw__onednn_run_bwd_weights(void *ctx, const iohw_problem *p,
                                 const void *x, const void *dy, void *dw,
                                 void *db);

#endif
