/*
 * backends/onednn/onednn_quant.c - what of a quantized problem
 * (specification section 11) oneDNN 2.6's int8 deconvolution can state, and
 * its primitive attributes.
 *
 * oneDNN 2.6 computes an int8 deconvolution as
 *     dst = saturate(rint(scale[oc] * (float)(acc + bias)) + zp_dst)
 * roughly: the s32 accumulator (with the source zero point compensated) is
 * converted to float, the bias added, the output scale multiplied, the
 * destination zero point added, and the result converted back with the
 * CPU's round-to-nearest-even (cvtps2dq under the default MXCSR) and
 * saturated.  So what it can state is:
 *   x      u8 or s8, with a source zero point (one value, mask 0);
 *   w      s8 only, zero point 0 (2.6 has no weight zero point for
 *          convolutions and deconvolutions);
 *   bias   int32 (the case's type; oneDNN converts it to float, exact
 *          below 2^24, and the qrandom fill keeps it within +-4096);
 *   y      s8, u8 (output scales, destination zero point) or s32 (no
 *          scale, no zero point: saturate(acc) when acc is below 2^24);
 *   M      the scales form only, rounding half_even only.
 * The order "add zp_y, then round" is oneDNN's own; section 11.3 says
 * where it differs from the definition (odd zp_y at ties), and the
 * conformance notes say whether it shows.
 */
#include "backends/onednn/onednn.h"

#include <stdlib.h>

#include <oneapi/dnnl/dnnl_debug.h>

#include "oracle/dtype.h"
#include "oracle/quant_problem.h"

int iohw__onednn_quant_refuse(const iohw_problem *p, iohw_error *err)
{
    if (iohw_problem_w_dtype(p) != IOHW_S8)
        return iohw_error_set(err, "oneDNN 2.6's int8 deconvolution takes s8 "
                              "weights only (w_dtype is %s)",
                              iohw_dtype_name(iohw_problem_w_dtype(p)));
    if (p->zp_w != 0)
        return iohw_error_set(err, "oneDNN 2.6 has no weight zero point for "
                              "deconvolution (zp_w is %d)", (int)p->zp_w);
    if (iohw_problem_y_dtype(p) == IOHW_S32)
        return 0;
    if (p->m_form != IOHW_QM_SCALES)
        return iohw_error_set(err, "oneDNN takes float output scales; the "
                              "fixed form's 31-bit multiplier does not fit "
                              "a binary32 in general (m_form %s)",
                              iohw_quant_m_form_name(p->m_form));
    if (p->rounding != IOHW_ROUND_HALF_EVEN)
        return iohw_error_set(err, "oneDNN rounds to nearest even (cvtps2dq) "
                              "and has no other rounding (rounding %s)",
                              iohw_quant_rounding_name(p->rounding));
    return 0;
}

/* The output scales: M[oc] = s_x * s_w[oc] / s_y in binary32, as a oneDNN
 * user computes them.  For the generated cases every scale is a power of
 * two (section 11.4's qrandom fill), so the product and the quotient are
 * exact and M is the definition's M; oneDNN's float product M * acc is then
 * exact while |acc| < 2^24 (section 11.2).  With other scales either step
 * may round, and near a tie the result can differ from the exact rational
 * rounding by one: a difference of float requantization the definition
 * does not excuse, reported as a FAIL.  requant NULL (supports(), before
 * the data is known) gives placeholder scales of 0.5: oneDNN's choice of
 * implementation depends on the mask, not on the values, as long as they
 * are not the default 1.
 * Mask 1 << 1 is dst's dimension 1, the output channel oc = g * Mg + m: the
 * O axis group by group, as section 11.1 asks. */
static dnnl_status_t set_scales(const iohw_problem *p, const float *s_w,
                                dnnl_primitive_attr_t attr)
{
    const int64_t n = p->per_channel ? p->out_channels : 1;
    float *m = malloc((size_t)n * sizeof *m);
    if (m == NULL)
        return dnnl_out_of_memory;
    for (int64_t i = 0; i < n; i++)
        m[i] = s_w != NULL ? p->s_x * s_w[i] / p->s_y : 0.5f;
    dnnl_status_t st = dnnl_primitive_attr_set_output_scales(
        attr, n, p->per_channel ? 1 << 1 : 0, m);
    free(m);
    return st;
}

dnnl_status_t iohw__onednn_quant_attr(const iohw_problem *p,
                                      const void *requant,
                                      dnnl_primitive_attr_t *attr,
                                      iohw_error *err)
{
    const char *call = "dnnl_primitive_attr_create";
    dnnl_status_t st = dnnl_primitive_attr_create(attr);
    if (st != dnnl_success) {
        *attr = NULL;
        goto fail;
    }
    const int32_t zp_x = p->zp_x, zp_y = p->zp_y;
    call = "dnnl_primitive_attr_set_zero_points (src)";
    if (zp_x != 0 && (st = dnnl_primitive_attr_set_zero_points(
                          *attr, DNNL_ARG_SRC, 1, 0, &zp_x)) != dnnl_success)
        goto fail;
    call = "dnnl_primitive_attr_set_zero_points (dst)";
    if (zp_y != 0 && (st = dnnl_primitive_attr_set_zero_points(
                          *attr, DNNL_ARG_DST, 1, 0, &zp_y)) != dnnl_success)
        goto fail;
    call = "dnnl_primitive_attr_set_output_scales";
    if (iohw_problem_y_dtype(p) != IOHW_S32 &&
        (st = set_scales(p, requant, *attr)) != dnnl_success)
        goto fail;
    return dnnl_success;
fail:
    iohw_error_set(err, "oneDNN: %s: %s", call, dnnl_status2str(st));
    if (*attr != NULL)
        dnnl_primitive_attr_destroy(*attr);
    *attr = NULL;
    return st;
}
