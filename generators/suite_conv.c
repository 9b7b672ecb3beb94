/*
 * generators/suite_conv.c - problems stated in a framework's convention
 * (specification section 12), where the frameworks disagree:
 *
 *   conv-odd-pad    odd total padding: SAME_UPPER, TensorFlow's 'SAME' and
 *                   ONNX Runtime >= 1.13 put the extra pixel at the end,
 *                   SAME_LOWER, TVM's 'SAME', ONNX's output_shape split and
 *                   ONNX Runtime < 1.13's SAME_UPPER at the beginning, MXNet
 *                   pads both sides by the larger half and adds adj = 1
 *   conv-out-floor  an output shape that is not L*S: TensorFlow accepts any
 *                   O with ceil(O/S) = L ('SAME'), ONNX splits what is left
 *   conv-out-op     an output shape beyond what pads reach: output_padding
 *                   makes it (derived by PyTorch, TensorFlow, Keras 'valid'
 *                   with k < s; given in ONNX)
 *   conv-valid      VALID with output_padding
 *
 * Each case also carries the tags of its convention (conv-onnx,
 * auto_pad-same_upper, out-shape: generators/tags.c).  smoke takes the rows
 * marked for it in f32, exact and normal fills in turn; ci and full take
 * every row in every dtype, the fill alternating so that every pair of row,
 * dtype and fill value occurs.  The cases join the shapes file, tagged
 * shapes,conventions,<tag>.
 */
#include "generators/suite_internal.h"

#include <stdio.h>

typedef struct conv_row {
    const char *tag;
    const char *desc;
    int smoke;
} conv_row;

static const conv_row ROWS[] = {
    {"conv-odd-pad", "ci=2 co=3 in=5 k=3 s=2 bias=1 auto_pad=same_upper conv=onnx", 1},
    {"conv-odd-pad", "ci=2 co=2 in=4x5 k=3x4 s=2x1 auto_pad=same_lower conv=onnx", 1},
    {"conv-out-floor", "ci=3 co=2 in=6 k=5 s=3 out=17 conv=onnx", 1},
    {"conv-out-op", "ci=2 co=2 in=4 k=2 s=3 op=2 out=12 conv=onnx", 1},
    {"conv-valid", "ci=2 co=3 in=3x3 k=2x3 s=2 op=1x0 bias=1 auto_pad=valid conv=onnx", 0},
    {"conv-odd-pad",
     "ci=2 co=2 in=2x3x3 k=2x3x2 s=2x2x1 d=1x1x2 auto_pad=same_upper conv=onnx", 1},
    {"conv-out-op", "ci=2 co=3 in=4 k=2 s=3 out=12 auto_pad=same_upper conv=tf", 1},
    {"conv-out-op", "ci=2 co=2 in=3x4 k=2x1 s=3x2 auto_pad=valid conv=tf", 1},
    {"conv-out-floor", "ci=3 co=2 in=3x4 k=3x3 s=2x3 bias=1 out=5x11 auto_pad=same_upper "
                       "conv=tf", 0},
    {"conv-odd-pad", "ci=2 co=3 in=5 k=4 s=2 op=1 auto_pad=same_lower conv=tvm", 1},
    {"conv-valid", "ci=2 co=2 in=3x3 k=3x2 s=2 op=1x0 auto_pad=valid conv=tvm", 0},
    {"conv-out-op", "ci=2 co=3 in=5 k=3 s=3 pad=1 bias=1 out=14 conv=torch", 1},
    {"conv-out-op", "ci=2 co=2 in=4x3 k=3x2 s=2x3 d=2x1 pad=1x0 out=10x9 conv=torch", 0},
    {"conv-odd-pad", "ci=2 co=3 in=5 k=4 s=2 out=9 conv=mxnet", 1},
    {"conv-odd-pad", "ci=2 co=2 in=3x4 k=3x3 s=2x1 d=1x2 out=6x7 conv=mxnet", 1},
    {"conv-out-floor", "ci=1 co=2 in=2x2x3 k=2x3x2 s=2x2x3 out=4x6x8 conv=torch", 1},
};
#define NROWS (sizeof ROWS / sizeof ROWS[0])

int iohw__plan_conventions(iohw_plan *plan, const iohw__profile *pr,
                           iohw_error *err)
{
    char tags[IOHW_PLAN_TAGS_MAX];
    const int dtypes = pr->shapes_dtypes == 1 ? 1 : 4;
    int64_t n = 0;

    for (size_t i = 0; i < NROWS; i++) {
        if (dtypes == 1 && !ROWS[i].smoke)
            continue;
        snprintf(tags, sizeof tags, "shapes,conventions,%s", ROWS[i].tag);
        for (int t = 0; t < dtypes; t++, n++) {
            const char *fill = (i + (size_t)t) % 2 == 0 ? "exact" : "normal";
            iohw_desc d;
            if (iohw__desc_from(ROWS[i].desc, iohw__dtypes[t], fill, &d, err) != 0 ||
                iohw__plan_add(plan, IOHW__CAT_SHAPES, &d, tags, 0, err) != 0)
                return -1;
        }
    }
    return n > 0 ? 0 : iohw_error_set(err, "suite: no convention case planned");
}
