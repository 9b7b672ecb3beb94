/*
 * generators/suite_shapes.c - the shapes sweep (edge cases of the problem's
 * geometry) and the fills category (every fill in every dtype).
 *
 * Each shape is a descriptor without dtype and fill, with a tag saying
 * which edge it covers:
 *   shape-size1            size-1 dimensions (input, kernel, channels)
 *   shape-kernel-gt-input  kernel larger than the input
 *   shape-stride-gt-kernel stride larger than the kernel: positions only the
 *                          bias reaches
 *   shape-crop-to-one      padding that crops all but one output position
 *   shape-op-real          output_padding with pad_end >= output_padding:
 *                          real values land in the extra positions
 *   shape-op-zeros         output_padding past the uncropped output: the
 *                          extra positions hold the bias alone
 *   shape-kernel64         kernel 64 with stride 2 in 1-d
 *   shape-io-square        C_in = C_out / G: an I/O exchange keeps the shape
 *   shape-depthwise17      depthwise with G = 17
 *   shape-batch            batch > 1
 *   shape-uneven           input length not a multiple of the stride
 *   shape-op-dilation      stride <= output_padding < dilation
 *   shape-crop-beyond      padding larger than the kernel's reach
 *   shape-anisotropic      every parameter different per axis
 * Fills per shape: smoke takes exact and normal in turn (f32), ci exact and
 * normal (every dtype), full every fill (every dtype).
 */
#include "generators/suite_internal.h"

#include <stdio.h>
#include <string.h>

typedef struct shape {
    const char *tag;
    const char *desc;
} shape;

static const shape SHAPES[] = {
    {"shape-size1", "ci=1 co=1 in=1 k=1"},
    {"shape-size1", "ci=3 co=2 in=1 k=3 s=2 bias=1"},
    {"shape-size1", "ci=2 co=3 in=1x4 k=3x2 s=1x2"},
    {"shape-size1", "n=2 ci=2 co=2 in=1x1x1 k=2x3x1 s=2x1x1 bias=1"},
    {"shape-kernel-gt-input", "ci=2 co=3 in=2 k=5"},
    {"shape-kernel-gt-input", "ci=3 co=2 in=2x3 k=4x5 s=2x1"},
    {"shape-kernel-gt-input", "ci=1 co=2 in=1x2x2 k=3x3x4 s=1x2x1"},
    {"shape-stride-gt-kernel", "ci=2 co=3 in=4 k=2 s=4 bias=1"},
    {"shape-stride-gt-kernel", "ci=3 co=2 in=3x3 k=1x2 s=3x4 bias=1"},
    {"shape-stride-gt-kernel", "ci=2 co=2 in=2x2x3 k=1x2x2 s=2x3x4 bias=1"},
    {"shape-crop-to-one", "ci=2 co=3 in=3 k=3 s=2 pad=3"},
    {"shape-crop-to-one", "ci=2 co=2 in=3x4 k=3x2 s=2x1 pad=5:1x0 bias=1"},
    {"shape-op-real", "ci=2 co=3 in=4 k=3 s=2 pad=1:2 op=1"},
    {"shape-op-real", "ci=2 co=2 in=3x4 k=3x3 s=2x3 pad=1:2x0:2 op=1x2 bias=1"},
    {"shape-op-zeros", "ci=2 co=3 in=4 k=3 s=2 pad=1:0 op=1 bias=1"},
    {"shape-op-zeros", "ci=2 co=2 in=3x4 k=2x2 s=3x3 op=2x1 bias=1"},
    {"shape-kernel64", "ci=3 co=5 in=8 k=64 s=2"},
    {"shape-kernel64", "ci=2 co=2 in=5 k=64 s=2 pad=31:20 op=1 bias=1"},
    {"shape-io-square", "ci=3 co=3 in=5 k=3 s=2"},
    {"shape-io-square", "ci=2 co=4 g=2 in=4x3 k=2x3"},
    {"shape-io-square", "ci=4 co=8 g=2 in=2x3x2 k=2x2x3 s=1x2x1 wl=OIDHW"},
    {"shape-depthwise17", "ci=17 co=17 g=17 in=6 k=3 s=2"},
    {"shape-depthwise17", "ci=17 co=34 g=17 in=4x3 k=3x2 bias=1 wl=GOIHW"},
    {"shape-batch", "n=3 ci=2 co=3 in=5 k=3 s=2"},
    {"shape-batch", "n=5 ci=3 co=2 in=3x2 k=2x2 s=2x1 bias=1 xl=NHWC"},
    {"shape-uneven", "ci=2 co=2 in=7 k=4 s=3 pad=1:2"},
    {"shape-op-dilation", "ci=2 co=3 in=5 k=3 s=2 d=3 op=2"},
    {"shape-crop-beyond", "ci=2 co=2 in=6 k=2 s=3 pad=2:3"},
    {"shape-anisotropic",
     "ci=3 co=2 in=2x3x4 k=1x2x3 s=3x2x1 d=1x2x1 pad=0x1:0x0:1 op=0x1x0"},
};
#define NSHAPES (sizeof SHAPES / sizeof SHAPES[0])

static int add_text(iohw_plan *plan, int category, const char *text,
                    iohw_dtype dt, const char *fill, const char *tags,
                    iohw_error *err)
{
    iohw_desc d;
    if (iohw__desc_from(text, dt, fill, &d, err) != 0)
        return -1;
    return iohw__plan_add(plan, category, &d, tags, 0, err);
}

int iohw__plan_shapes(iohw_plan *plan, const iohw__profile *pr,
                      iohw_error *err)
{
    const char *const *fills = iohw_fill_names();
    char tags[IOHW_PLAN_TAGS_MAX];

    for (size_t i = 0; i < NSHAPES; i++) {
        snprintf(tags, sizeof tags, "shapes,%s", SHAPES[i].tag);
        for (int t = 0; t < pr->shapes_dtypes; t++) {
            const iohw_dtype dt = iohw__dtypes[t];
            if (pr->shapes_fills == 1) {
                const char *fill = i % 2 == 0 ? "exact" : "normal";
                if (add_text(plan, IOHW__CAT_SHAPES, SHAPES[i].desc, dt, fill, tags,
                             err) != 0)
                    return -1;
                continue;
            }
            for (int k = 0; k < pr->shapes_fills && fills[k] != NULL; k++)
                if (add_text(plan, IOHW__CAT_SHAPES, SHAPES[i].desc, dt, fills[k],
                             tags, err) != 0)
                    return -1;
        }
    }
    return iohw__plan_conventions(plan, pr, err);
}

/* The fills category's problem of each rank: every channel count per group
 * is >= 2 so that `cancel` has channel pairs. */
static const char *const FILL_PROBLEMS[3] = {
    "n=2 ci=5 co=4 in=9 k=4 s=2 pad=1:2 op=1 bias=1",
    "ci=4 co=6 g=2 in=5x4 k=3x2 s=2x1 d=1x2 pad=1x0:1 op=1x0 bias=1",
    "ci=3 co=2 in=3x3x4 k=2x2x3 s=2x1x2 pad=0x1x1:0 bias=1",
};

int iohw__plan_fills(iohw_plan *plan, const iohw__profile *pr,
                     iohw_error *err)
{
    const char *const *fills = iohw_fill_names();
    int64_t n = 0;

    for (int k = 0; fills[k] != NULL; k++) {
        /* accum16 is designed for one bug and has its own rows
         * (suite_narrow.c). */
        if (strcmp(fills[k], "accum16") == 0)
            continue;
        for (int t = 0; t < 4; t++)
            for (int r = 0; r < pr->fills_ranks; r++)
                for (int s = 0; s < pr->fills_seeds; s++, n++) {
                    /* One rank: ranks in turn over fills and dtypes. */
                    const int R = pr->fills_ranks == 3 ? r : (int)(n % 3);
                    if (add_text(plan, IOHW__CAT_FILLS, FILL_PROBLEMS[R], iohw__dtypes[t],
                                 fills[k], "fills", err) != 0)
                        return -1;
                }
    }
    return 0;
}
