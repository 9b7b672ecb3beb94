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

#endif
