/*
 * backends/faults/fault_quant.c - reading a quantized problem of the ABI
 * for the quantized faults (fault_quant.h).
 *
 * The problem's quantization members and the requant tensor become an
 * iohw_quant through iohw_quant_from_problem (oracle/quant_problem.h).
 */
#include "fault_quant.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "oracle/layout.h"
#include "oracle/problem.h"
#include "oracle/quant_problem.h"

int iohw__fault_is_quant(const iohw_problem *p)
{
    return p != NULL && IOHW_HAS_MEMBER(p, iohw_problem, s_y) &&
           (p->dtype == IOHW_S8 || p->dtype == IOHW_U8);
}

/* p float-coded for the oracle (dtype f32, the quantized members 0: the
 * oracle takes them from an iohw_quant). */
static void float_coded(const iohw_problem *p, iohw_problem *po)
{
    const size_t at = offsetof(iohw_problem, w_dtype);
    *po = *p;
    memset((char *)po + at, 0, IOHW_MEMBER_END(iohw_problem, s_y) - at);
    po->dtype = IOHW_F32;
}

int iohw__fault_quant_check(const iohw_problem *p, iohw_error *err)
{
    if (!iohw__fault_is_quant(p))
        return iohw_error_set(err, "not a quantized problem");
    return iohw_problem_validate(p, err);
}

void iohw__fault_qwork_free(fault_qwork *fw)
{
    free(fw->x);
    free(fw->w);
    memset(fw, 0, sizeof *fw);
}

static void *to_canonical(const iohw_layout_map *m, size_t es, const void *src)
{
    void *dst = malloc((size_t)m->count * es);
    if (dst != NULL)
        iohw_layout_to_canonical(m, es, src, dst);
    return dst;
}

int iohw__fault_qwork_init(fault_qwork *fw, const iohw_problem *p, const void *x,
                           const void *w, const void *bias, const void *requant,
                           iohw_error *err)
{
    iohw_layout_map mx, mw;
    memset(fw, 0, sizeof *fw);
    if (iohw__fault_quant_check(p, err) != 0)
        return -1;
    if (requant == NULL && iohw_problem_y_dtype(p) != IOHW_S32)
        return iohw_error_set(err, "run_quant: requant is NULL");
    fw->given = p;
    float_coded(p, &fw->p);
    if (iohw_quant_from_problem(p, requant, &fw->q, err) != 0 ||
        iohw_layout_data_map(&fw->p, 0, &mx, err) != 0 ||
        iohw_layout_weight_map(&fw->p, &mw, err) != 0)
        return -1;
    fw->x = to_canonical(&mx, 1, x);
    fw->w = to_canonical(&mw, 1, w);
    fw->bias = p->has_bias ? bias : NULL;
    fw->w_given = w;
    iohw_layout_default_data((int)p->rank, fw->p.data_layout);
    iohw_layout_default_weight((int)p->rank, fw->p.weight_layout);
    fw->ny = iohw_problem_y_count(p);
    fw->OV = fw->ny / (p->batch * p->out_channels);
    fw->y_size = fw->q.y_dtype == IOHW_S32 ? 4 : 1;
    if (fw->x == NULL || fw->w == NULL) {
        iohw__fault_qwork_free(fw);
        return iohw_error_set(err, "run_quant: out of memory");
    }
    return 0;
}

int iohw__fault_qstore(const fault_qwork *fw, const void *yc, void *y, iohw_error *err)
{
    iohw_layout_map my;
    iohw_problem p = fw->p; /* the given layouts, float-coded */
    memcpy(p.data_layout, fw->given->data_layout, sizeof p.data_layout);
    if (iohw_layout_data_map(&p, 1, &my, err) != 0)
        return -1;
    iohw_layout_from_canonical(&my, fw->y_size, yc, y);
    return 0;
}

int iohw__fault_qacc(const fault_qwork *fw, const void *x, const void *w, int with_bias,
                     int64_t *acc, iohw_error *err)
{
    iohw_problem p = fw->p;
    p.has_bias = with_bias && fw->bias != NULL;
    return iohw_quant_accumulate(&p, &fw->q, x, w, fw->bias, acc, err);
}

void iohw__fault_qput(const fault_qwork *fw, void *y, int64_t i, int64_t v, int wrap)
{
    switch (fw->q.y_dtype) {
    case IOHW_S8:
        ((int8_t *)y)[i] = (int8_t)(wrap ? (int8_t)(uint8_t)(v & 0xff)
                                         : v < -128 ? -128 : v > 127 ? 127 : v);
        break;
    case IOHW_U8:
        ((uint8_t *)y)[i] = (uint8_t)(wrap ? (v & 0xff) : v < 0 ? 0 : v > 255 ? 255 : v);
        break;
    default:
        ((int32_t *)y)[i] = (int32_t)(v < INT32_MIN ? INT32_MIN : v > INT32_MAX ? INT32_MAX : v);
    }
}
