/*
 * generators/suite_backward_rows.c - the designed rows of the backward
 * category (specification section 13), after its covering arrays: each
 * row is tagged backward,bug-bwd-<name> (docs/PITFALLS.md), its shape
 * and data chosen so that an implementation with that bug fails it:
 *
 *   bwd-io-swap           dw returned as OIHW (or w read as OIHW by
 *                         backward-data): C_in / G != C_out / G, so the
 *                         exchanged shape does not even fit
 *   bwd-no-flip           the gradient kernel not flipped (dx as a
 *                         correlation where a convolution belongs, or dw
 *                         reversed): asymmetric kernels, random dy
 *   bwd-op-leak           the output_padding region of dy leaking into dx
 *                         or dw (it feeds db only): output_padding > 0 with
 *                         dy nonzero there (every fill here is dense), one
 *                         row beyond the limit (op >= stride)
 *   bwd-stride-phase      the wrong phase of a strided gradient: stride > 1
 *                         with kernels not a multiple of the stride
 *   bwd-group-interleave  groups > 1 with distinct data per group and
 *                         Cg != Mg
 *   bwd-db-axes           db summed per group, without the spatial sum or
 *                         not over the batch: bias with groups, N > 1 and
 *                         more than one output position
 *   bwd-batch             dw not summed over the batch (the last or first
 *                         sample only): N > 1
 *
 * Dtypes: smoke takes each row in f32 and in one of f64, f16, bf16 in
 * turn; ci and full take every row in every dtype.  The fill is exact
 * (every sum exact, so a wrong result differs by whole units) in f32 and
 * f64, exact and normal in turn in f16 and bf16.
 */
#include "generators/suite_internal.h"

#include <stdio.h>

typedef struct bwd_row {
    const char *tag;
    int32_t dir;
    const char *desc;
} bwd_row;

#define D IOHW_DIR_BWD_D
#define W IOHW_DIR_BWD_W

static const bwd_row ROWS[] = {
    {"bug-bwd-io-swap", W, "n=1 ci=3 co=2 in=5x4 k=3x2"},
    {"bug-bwd-io-swap", W, "n=1 ci=4 co=6 g=2 in=6 k=3 s=2 bias=1"},
    {"bug-bwd-io-swap", D, "n=1 ci=3 co=5 in=4x3 k=2x3 s=2x1"},
    {"bug-bwd-no-flip", D, "n=1 ci=2 co=3 in=6 k=3"},
    {"bug-bwd-no-flip", D, "n=1 ci=2 co=2 in=4x5 k=2x3 s=2x1"},
    {"bug-bwd-no-flip", W, "n=1 ci=2 co=3 in=5 k=4 pad=1:2"},
    {"bug-bwd-op-leak", D, "n=1 ci=2 co=3 in=4 k=3 s=2 op=1"},
    {"bug-bwd-op-leak", D, "n=2 ci=2 co=2 in=3x4 k=2x3 s=3x2 op=2x1"},
    {"bug-bwd-op-leak", W, "n=1 ci=3 co=2 in=4 k=3 s=2 pad=1 op=1 bias=1"},
    {"bug-bwd-op-leak", D, "n=1 ci=2 co=2 in=3 k=2 s=2 op=3"},
    {"bug-bwd-stride-phase", D, "n=1 ci=2 co=2 in=5 k=3 s=2"},
    {"bug-bwd-stride-phase", D, "n=1 ci=2 co=3 in=4 k=5 s=3 pad=1"},
    {"bug-bwd-stride-phase", W, "n=1 ci=2 co=2 in=3x4 k=3x4 s=2x3"},
    {"bug-bwd-stride-phase", D, "n=1 ci=1 co=2 in=2x3x3 k=3x2x2 s=2x3x1"},
    {"bug-bwd-group-interleave", D, "n=1 ci=4 co=6 g=2 in=5 k=3"},
    {"bug-bwd-group-interleave", W, "n=1 ci=6 co=4 g=2 in=3x4 k=3x2 s=2"},
    {"bug-bwd-group-interleave", D, "n=2 ci=6 co=9 g=3 in=4 k=2 s=2 d=2"},
    {"bug-bwd-db-axes", W, "n=2 ci=4 co=6 g=2 in=4x3 k=3x2 s=2 bias=1"},
    {"bug-bwd-db-axes", W, "n=3 ci=2 co=3 in=5 k=3 bias=1"},
    {"bug-bwd-batch", W, "n=3 ci=2 co=3 in=4 k=3 s=2"},
    {"bug-bwd-batch", W, "n=2 ci=3 co=2 in=3x3 k=2x2 s=2 pad=0:1"},
};
#define NROWS (sizeof ROWS / sizeof ROWS[0])

int iohw__plan_backward_rows(iohw_plan *plan, const iohw__profile *pr,
                             iohw_error *err)
{
    char tags[IOHW_PLAN_TAGS_MAX];
    for (size_t i = 0; i < NROWS; i++) {
        snprintf(tags, sizeof tags, "backward,%s", ROWS[i].tag);
        for (int t = 0; t < 4; t++) {
            /* smoke: f32 and one other dtype in turn (1 + i % 3). */
            if (pr->backward_dtypes == 1 && t != 0 && t != 1 + (int)(i % 3))
                continue;
            const char *fill = t < 2 || (i + (size_t)t) % 2 == 0 ? "exact" : "normal";
            if (iohw__plan_backward_add(plan, ROWS[i].desc, ROWS[i].dir, iohw__dtypes[t],
                                        fill, tags, err) != 0)
                return iohw_error_prefix(err, "backward row %zu", i);
        }
    }
    return 0;
}
