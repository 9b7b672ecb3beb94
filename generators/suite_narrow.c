/*
 * generators/suite_narrow.c - the regression corpus's narrow bugs: one
 * special value, one conversion, the tail of a blocked loop.  Each class
 * has cases in every rank, so that a seeded fault of the class fails at
 * least three smoke cases (tests/test_narrow_faults.c counts them).
 *
 *   bug-zero-skip          fill=zeros: 0 * Inf and Inf * 0 reach outputs
 *                          (NaN); skipping zero x or zero w leaves them
 *                          finite.  Two or more channels per group, so both
 *                          kinds are in every group.
 *   bug-subnormal-flush    fill=subnormal: subnormal inputs and results,
 *                          each dtype in two cases of smoke (and once more
 *                          in the fills category).
 *   bug-rounding           fill=ties (judged bit for bit): truncation and
 *                          ties away from zero in f16 and bf16.
 *   bug-overflow           fill=huge: results far beyond the largest
 *                          finite value, in f16, bf16 and f32.
 *   bug-fast-math-weights  long f32 reductions (C_in/G x kernel > 256) with
 *                          normal weights, in every rank.
 *   bug-blocked-tail       channels per group of 9, 13, 17, 33, 65; output
 *                          widths of 17, 19, 33, 36, 65, 66 (not multiples
 *                          of 8); kernels of 9 and 11 on one axis.
 *   bug-f16-accum          fill=accum16: products a whole multiple plus 3/8
 *                          of the 16-bit type's smallest subnormal, summed
 *                          over 8 to 32 terms; a 16-bit accumulator loses
 *                          the 3/8 on each (f16 in smoke, f16 and bf16 in
 *                          ci), in every rank.
 *   bug-1x1-crop           kernels of one tap on every axis (and k x 1,
 *                          1 x k) with padding, so the output is cropped
 *                          (out = in - pad_begin - pad_end at stride 1):
 *                          with and without stride, symmetric and
 *                          asymmetric, in every rank; a 1x1 GEMM path that
 *                          forgets the crop fails the stride-1 ones.
 * Smoke holds at most 300 forward cases: its three stride-1 1x1 rows carry
 * both of the last two classes (f16, accum16), beside one strided k x 1
 * row in f32; the third overflow row is f32 alone there (f16 and bf16 keep
 * three smoke cases each with the fills category's huge case).
 *
 * Each row names its fill and its dtypes in smoke and in ci (full takes
 * ci's).  Cases go to the regressions file, tagged regressions,<bug>.
 */
#include "generators/suite_internal.h"

#include <stdio.h>
#include <string.h>

#include "oracle/dtype.h"

typedef struct narrow_row {
    const char *bug;
    const char *desc;
    const char *fill;
    const char *smoke;  /* dtypes, space-separated */
    const char *ci;
} narrow_row;

#define ALL "f32 f64 f16 bf16"

static const narrow_row ROWS[] = {
    {"bug-zero-skip", "ci=3 co=4 in=7 k=3 s=2 bias=1", "zeros", "f32 f16", ALL},
    {"bug-zero-skip", "ci=4 co=6 g=2 in=4x5 k=2x3 s=2x1 pad=1x0", "zeros", "bf16 f64", ALL},
    {"bug-zero-skip", "n=2 ci=2 co=2 in=2x3x3 k=2x2x2 s=1x2x1 bias=1", "zeros", "f32", ALL},
    {"bug-subnormal-flush", "ci=3 co=3 in=8 k=3 s=2 bias=1", "subnormal", "f32 f16", ALL},
    {"bug-subnormal-flush", "ci=2 co=4 in=4x5 k=3x2 pad=1x0", "subnormal", "f64 bf16", ALL},
    {"bug-subnormal-flush", "ci=2 co=3 in=3x2x3 k=2x2x2 s=2x1x1 bias=1", "subnormal", ALL,
     ALL},
    {"bug-rounding", "ci=2 co=3 in=9 k=4 s=2", "ties", "f16 bf16", ALL},
    {"bug-rounding", "ci=3 co=4 in=5x4 k=3x3 s=2x1 bias=1", "ties", "f16 bf16", ALL},
    {"bug-rounding", "ci=2 co=2 in=3x3x2 k=2x2x2 s=1x2x1", "ties", "f16 bf16", ALL},
    {"bug-overflow", "ci=3 co=4 in=6 k=3 bias=1", "huge", "f32 f16 bf16", ALL},
    {"bug-overflow", "ci=2 co=2 in=4x4 k=2x2", "huge", "f32 f16 bf16", ALL},
    {"bug-overflow", "ci=2 co=2 in=2x2x3 k=2x1x2 bias=1", "huge", "f32", ALL},
    {"bug-fast-math-weights", "ci=32 co=4 in=6 k=9 s=2", "normal", "f32", "f32 f64"},
    {"bug-fast-math-weights", "ci=20 co=3 in=4x4 k=4x4 pad=1x2", "normal", "f32", "f32 f64"},
    {"bug-fast-math-weights", "ci=12 co=2 in=3x3x3 k=3x3x3 bias=1", "normal", "f32",
     "f32 f64"},
    {"bug-fast-math-weights", "ci=66 co=4 g=2 in=5 k=9 s=3", "uniform", "f32", "f32 f64"},
    {"bug-blocked-tail", "ci=9 co=4 in=5 k=3 s=2", "exact", "f32", "f32 f16"},
    {"bug-blocked-tail", "ci=34 co=4 g=2 in=3x4 k=2x2", "normal", "f32", "f32 bf16"},
    {"bug-blocked-tail", "ci=33 co=2 in=2x2x3 k=1x2x2", "exact", "f32", "f32 f64"},
    {"bug-blocked-tail", "ci=65 co=3 in=4 k=2", "normal", "", "f32 f64"},
    {"bug-blocked-tail", "ci=13 co=2 g=1 in=3x3 k=3x3 bias=1", "exact", "", "f32 f16"},
    {"bug-blocked-tail", "ci=2 co=3 in=9 k=3 s=2", "normal", "f32", "f32 f16"},
    {"bug-blocked-tail", "ci=2 co=2 in=3x17 k=2x1", "exact", "f32", "f32 bf16"},
    {"bug-blocked-tail", "ci=1 co=2 in=2x2x12 k=1x2x3 s=1x1x3", "normal", "f32", "f32 f64"},
    {"bug-blocked-tail", "ci=2 co=2 in=33 k=1", "exact", "", "f32 f64"},
    {"bug-blocked-tail", "ci=2 co=2 in=4x22 k=2x3 s=1x3", "normal", "", "f32 f16"},
    {"bug-blocked-tail", "ci=2 co=2 in=32 k=3 s=2", "normal", "", "f32 bf16"},
    {"bug-blocked-tail", "ci=2 co=3 in=4x3 k=2x11", "normal", "f32", "f32 f64"},
    {"bug-blocked-tail", "ci=2 co=2 in=6 k=9 d=2 bias=1", "exact", "", "f32 f16"},
    {"bug-blocked-tail", "ci=2 co=2 in=2x3x2 k=9x1x2", "normal", "", "f32 bf16"},
    /* Both classes at once (smoke's budget): a 1x1 kernel at stride 1 with
     * crop, accum16 data in f16. */
    {"bug-f16-accum,bug-1x1-crop", "ci=16 co=4 in=12 k=1 pad=2:1 bias=1", "accum16", "f16",
     "f16 bf16"},
    {"bug-f16-accum,bug-1x1-crop", "ci=12 co=4 in=6x6 k=1x1 pad=1x1", "accum16", "f16",
     "f16 bf16"},
    {"bug-f16-accum,bug-1x1-crop", "ci=8 co=2 in=3x3x4 k=1x1x1 pad=1:0x0:1x1:2 bias=1",
     "accum16", "f16", "f16 bf16"},
    {"bug-f16-accum", "ci=8 co=4 in=12 k=3 bias=1", "accum16", "", "f16 bf16"},
    {"bug-f16-accum", "ci=6 co=4 in=6x6 k=2x2", "accum16", "", "f16 bf16"},
    {"bug-f16-accum", "ci=3 co=2 in=3x3x4 k=2x2x2 bias=1", "accum16", "", "f16 bf16"},
    {"bug-f16-accum", "ci=32 co=8 in=16 k=1", "accum16", "", "f16 bf16"},
    {"bug-f16-accum", "ci=4 co=6 g=2 in=5x5 k=3x3 s=2x2 pad=1x1", "accum16", "",
     "f16 bf16"},
    {"bug-1x1-crop", "ci=3 co=2 in=5x6 k=3x1 s=1x2 pad=1x1:2 bias=1", "exact", "f32",
     "f32 f64"},
    {"bug-1x1-crop", "ci=3 co=4 in=9 k=1 pad=2:1 bias=1", "exact", "", "f32 f16"},
    {"bug-1x1-crop", "ci=4 co=3 in=6x7 k=1x1 pad=1x1", "normal", "", "f32 f64"},
    {"bug-1x1-crop", "n=2 ci=2 co=3 in=3x4x5 k=1x1x1 pad=1:0x0:1x2:1", "exact", "",
     "f32 bf16"},
    {"bug-1x1-crop", "ci=4 co=4 g=2 in=5x6 k=1x1 pad=0:2x1:0 bias=1", "exact", "", "f32 f64"},
    {"bug-1x1-crop", "ci=2 co=3 in=7 k=1 s=2 pad=1:2", "normal", "", "f32 f64"},
    {"bug-1x1-crop", "ci=2 co=3 in=5x4 k=1x1 s=2x3 pad=1:0x2:1", "exact", "", "f32 f16"},
    {"bug-1x1-crop", "ci=2 co=2 in=3x3x4 k=1x1x1 s=2x1x2 pad=1x0:1x1", "normal", "",
     "f32 f64"},
    {"bug-1x1-crop", "ci=3 co=2 in=5x6 k=3x1 pad=1x1:2", "exact", "", "f32 f64"},
    {"bug-1x1-crop", "ci=2 co=2 in=3x4x5 k=1x3x1 s=1x2x1 pad=1x1:0x0:1 bias=1", "normal", "",
     "f32 f64"},
    {"bug-1x1-crop", "ci=2 co=3 in=8 k=1 pad=3", "exact", "", "f32 bf16"},
    {"bug-1x1-crop", "ci=3 co=2 in=4x9 k=1x4 s=1x2 pad=1x2:1", "normal", "", "f32 f64"},
    {"bug-1x1-crop", "ci=2 co=2 in=4x5x3 k=2x1x1 pad=0x2x1:0", "exact", "", "f32 f16"},
};
#define NROWS (sizeof ROWS / sizeof ROWS[0])

int iohw__plan_narrow(iohw_plan *plan, const iohw__profile *pr, iohw_error *err)
{
    char tags[IOHW_PLAN_TAGS_MAX], word[8];

    for (size_t i = 0; i < NROWS; i++) {
        const char *list = pr->regress_dtypes == 1 ? ROWS[i].smoke : ROWS[i].ci;
        snprintf(tags, sizeof tags, "regressions,%s", ROWS[i].bug);
        for (const char *s = list; *s != '\0';) {
            size_t n = strcspn(s, " ");
            iohw_dtype dt;
            iohw_desc d;
            snprintf(word, sizeof word, "%.*s", (int)n, s);
            s += n + (s[n] == ' ');
            if (iohw_dtype_parse(word, &dt) != 0)
                return iohw_error_set(err, "suite: narrow row %zu: dtype '%s'", i, word);
            if (iohw__desc_from(ROWS[i].desc, dt, ROWS[i].fill, &d, err) != 0 ||
                iohw__plan_add(plan, IOHW__CAT_REGRESSIONS, &d, tags, 0, err) != 0)
                return -1;
        }
    }
    return 0;
}
