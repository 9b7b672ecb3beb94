/*
 * judge/diagnose_conv.c - misreadings of a framework convention
 * (specification sections 3.5 and 12), as variants of the correct
 * computation (diagnose_internal.h).  Each applies only to a case that
 * states the convention it is about:
 *   SAME_LOWER where SAME_UPPER    auto_pad=same_upper: the odd padding put
 *   was asked (and the reverse)    at the beginning, so the crop starts at
 *                                  pad_end (microsoft/onnxruntime#9370)
 *   VALID where SAME was asked     auto_pad=same_*: nothing cropped at the
 *                                  beginning (microsoft/onnxruntime#4086)
 *   output_shape's odd padding at  conv=onnx with output_shape and no SAME:
 *   the end                        ONNX Runtime before 1.13 padded more at
 *                                  the end; the operator's formula puts the
 *                                  larger half at the beginning
 * output_padding put at the beginning is the general variant "output_padding
 * at the beginning" (diagnose_variants.c).
 */
#include "judge/diagnose_internal.h"

int iohw__dg_same_lower_for_upper(const iohw__dg_base *b, iohw__dg_variant *v)
{
    if (b->p->auto_pad != IOHW_AUTO_PAD_SAME_UPPER)
        return 0;
    return iohw__dg_pads_exchanged(b, v);
}

int iohw__dg_same_upper_for_lower(const iohw__dg_base *b, iohw__dg_variant *v)
{
    if (b->p->auto_pad != IOHW_AUTO_PAD_SAME_LOWER)
        return 0;
    return iohw__dg_pads_exchanged(b, v);
}

int iohw__dg_valid_for_same(const iohw__dg_base *b, iohw__dg_variant *v)
{
    int differs = 0;
    if (b->p->auto_pad != IOHW_AUTO_PAD_SAME_UPPER &&
        b->p->auto_pad != IOHW_AUTO_PAD_SAME_LOWER)
        return 0;
    for (int a = 0; a < b->rank; a++) {
        v->begin[a] = 0;
        differs |= b->p->pad_begin[a] > 0;
    }
    return differs;
}

int iohw__dg_onnx_out_split_at_end(const iohw__dg_base *b, iohw__dg_variant *v)
{
    if (b->p->convention != IOHW_CONV_ONNX || b->p->out_shape[0] == 0 ||
        b->p->auto_pad == IOHW_AUTO_PAD_SAME_UPPER ||
        b->p->auto_pad == IOHW_AUTO_PAD_SAME_LOWER)
        return 0;
    return iohw__dg_pads_exchanged(b, v);
}
