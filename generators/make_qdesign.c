/*
 * generators/make_qdesign.c - a quantized case's inputs by a designed fill
 * (fill_qdesign.h): the fill works on canonical tensors and chooses the
 * parameters; this writes them into the problem and the tensors into its
 * layouts.
 */
#include "generators/fill_qdesign.h"

#include <stddef.h>
#include <string.h>

#include "oracle/layout.h"
#include "oracle/problem.h"

/* p float-coded (dtype f32, the quantized members 0), for the layout maps
 * and the oracle, which take the parameters from an iohw_quant. */
static iohw_problem float_coded(const iohw_problem *p)
{
    const size_t at = offsetof(iohw_problem, w_dtype);
    iohw_problem f = *p;
    memset((char *)&f + at, 0, IOHW_MEMBER_END(iohw_problem, s_y) - at);
    f.dtype = IOHW_F32;
    return f;
}

/* Writes d's parameters into p and its requant values into requant. */
static void write_params(iohw_problem *p, const iohw__qdata *d, void *requant)
{
    const int64_t n = p->per_channel ? p->out_channels : 1;
    p->zp_x = d->q.zp_x;
    p->zp_w = d->q.zp_w;
    p->zp_y = d->q.zp_y;
    if (d->q.y_dtype == IOHW_S32)
        return;
    if (p->m_form == IOHW_QM_SCALES) {
        p->s_x = d->q.s_x;
        p->s_y = d->q.s_y;
        memcpy(requant, d->q.s_w, (size_t)n * sizeof(float));
    } else {
        memcpy(requant, d->q.multiplier, (size_t)n * sizeof(int32_t));
        memcpy((int32_t *)requant + n, d->q.shift, (size_t)n * sizeof(int32_t));
    }
}

int iohw__fill_qdesign(iohw_problem *p, const char *fill, uint64_t seed, void *x,
                       void *w, int32_t *bias, void *requant, iohw_error *err)
{
    const int kind = iohw__qfill_kind(fill);
    const iohw_problem f = float_coded(p);
    iohw__qwant want = {p->dtype, p->w_dtype != 0 ? p->w_dtype : p->dtype,
                        p->y_dtype != 0 ? p->y_dtype : p->dtype,
                        p->rounding, p->m_form, p->per_channel};
    iohw_layout_map mx, mw;
    iohw__qdata d;

    if (kind < 0)
        return iohw_error_set(err, "fill '%s' is not a designed quantized fill", fill);
    if (!p->per_channel && want.y_dtype != IOHW_S32 &&
        (kind == IOHW__QFILL_CHANNELS || kind == IOHW__QFILL_GROUP_TRAP))
        return iohw_error_set(err, "fill %s needs per-channel scales (pc=1)", fill);
    if (iohw_layout_data_map(&f, 0, &mx, err) != 0 ||
        iohw_layout_weight_map(&f, &mw, err) != 0)
        return -1;
    if (iohw__qfill(&f, kind, &want, seed, &d, err) != 0)
        return -1;
    iohw_layout_from_canonical(&mx, 1, d.x, x);
    iohw_layout_from_canonical(&mw, 1, d.w, w);
    if (p->has_bias)
        memcpy(bias, d.bias, (size_t)p->out_channels * sizeof *bias);
    write_params(p, &d, requant);
    iohw__qdata_free(&d);
    return 0;
}
