/*
 * generators/suite_regressions.c - the regression corpus: for every bug of
 * the pitfalls list, cases tagged bug-<name> that an implementation with
 * that bug fails.
 *
 * Each entry is a descriptor without dtype and fill plus the condition that
 * makes the bug visible (in the comment).  Fills: exact and normal in turn,
 * so a wrong result shows as a bit difference or beyond the tolerance;
 * distinct values in every weight position (the fills guarantee that) make
 * flips and exchanges visible.  Dtypes: f32 (smoke), f32 and f64 (ci),
 * every dtype (full); entries with their own dt are planned once.

 * bug-f16-accum is a narrow row (suite_narrow.c): it needs its own fill.
 */
#include "generators/suite_internal.h"

#include <stdio.h>
#include <string.h>

typedef struct regression {
    const char *bug;
    const char *desc;
} regression;

static const regression CORPUS[] = {
    /* I and O exchanged: square I/O (C_in = C_out/G) and not. */
    {"bug-io-swap", "ci=4 co=4 in=5x6 k=3x2 s=2x1 bias=1"},
    {"bug-io-swap", "ci=3 co=5 in=6 k=3 s=2 wl=OIW"},
    {"bug-io-swap", "ci=4 co=4 g=2 in=3x4 k=2x3 wl=GOIHW"},
    {"bug-io-swap", "ci=2 co=6 g=2 in=2x3x3 k=2x2x2 s=2x1x1 wl=DHWOI"},
    /* Kernel not flipped: K >= 2 with distinct taps. */
    {"bug-no-flip", "ci=2 co=3 in=6 k=3"},
    {"bug-no-flip", "ci=2 co=2 in=4x5 k=3x2 s=2x1 pad=1x0"},
    {"bug-no-flip", "ci=1 co=2 in=3x3x3 k=2x2x2 s=2x1x1"},
    /* Group channels interleaved: G > 1 with Cg > 1 or Mg > 1. */
    {"bug-group-interleave", "ci=6 co=4 g=2 in=5 k=3 s=2"},
    {"bug-group-interleave", "ci=6 co=9 g=3 in=3x4 k=2x2 bias=1"},
    /* Bias indexed per group: bias with G > 1. */
    {"bug-bias-group", "ci=4 co=6 g=2 in=5 k=2 s=2 bias=1"},
    {"bug-bias-group", "ci=3 co=6 g=3 in=3x3 k=2x2 bias=1"},
    /* Effective kernel K + D - 1: visible when (K-2)(D-1) + A > pad_end. */
    {"bug-eff-kernel", "ci=2 co=3 in=5 k=3 d=2"},
    {"bug-eff-kernel", "ci=2 co=2 in=4 k=5 d=3 s=2 pad=2:1"},
    {"bug-eff-kernel", "ci=2 co=2 in=3x4 k=4x3 d=2x3 s=1x2"},
    /* Dilation ignored or mixed with the stride: D > 1, K >= 2. */
    {"bug-dilation", "ci=2 co=3 in=5 k=3 s=2 d=2"},
    {"bug-dilation", "ci=2 co=2 in=4x3 k=2x3 s=3x2 d=2x3 pad=1x2"},
    {"bug-dilation", "ci=1 co=2 in=2x3x3 k=2x2x2 d=3x1x2"},
    /* Dilation 0-based: any K >= 2 (D = 1 collapses the kernel). */
    {"bug-dilation-0based", "ci=2 co=2 in=5 k=3 d=2"},
    {"bug-dilation-0based", "ci=2 co=3 in=4x4 k=2x3 d=3x1"},
    /* output_padding ignored or at the beginning: A > 0, pad_end >= A. */
    {"bug-op-ignored", "ci=2 co=3 in=4 k=3 s=2 pad=1 op=1"},
    {"bug-op-ignored", "ci=2 co=2 in=3x4 k=3x4 s=2x3 pad=1:1x1:2 op=1x2 bias=1"},
    /* output_padding limit: stride <= A < dilation is valid; A >= max(S, D)
     * is beyond the limit (tagged op-beyond-limit). */
    {"bug-op-limit", "ci=2 co=2 in=4 k=3 s=1 d=2 op=1"},
    {"bug-op-limit", "ci=2 co=3 in=3x4 k=2x3 s=2x1 d=1x3 op=1x2"},
    {"bug-op-limit", "ci=2 co=2 in=4 k=2 s=2 op=2 bias=1"},
    /* Asymmetric padding unsupported or exchanged: both directions. */
    {"bug-asym-pad", "ci=2 co=3 in=5 k=4 s=2 pad=2:0"},
    {"bug-asym-pad", "ci=2 co=2 in=5 k=4 s=2 pad=0:2"},
    {"bug-asym-pad", "ci=2 co=2 in=4x5 k=3x4 s=2x2 pad=2:1x0:3 bias=1"},
    /* Padding as input padding: pad_begin > 0. */
    {"bug-pad-as-input", "ci=2 co=3 in=5 k=3 s=2 pad=1"},
    {"bug-pad-as-input", "ci=2 co=2 in=4x3 k=4x3 s=2x1 pad=2x1"},
    /* SAME splits (output L*S): the odd pixel on either side. */
    {"bug-same-split", "ci=2 co=2 in=4 k=3 s=2 pad=0:1"},
    {"bug-same-split", "ci=2 co=2 in=4 k=3 s=2 pad=1:0"},
    {"bug-same-split", "ci=2 co=3 in=3x4 k=4x3 s=2x2 pad=1:1x0:1"},
    {"bug-same-split", "ci=2 co=2 in=5 k=5 s=2 pad=1:2 bias=1"},
    /* Negative total padding (an output_shape larger than the natural
     * size): the extra positions belong at the end. */
    {"bug-neg-pad-floor", "ci=2 co=2 in=4 k=2 s=2 op=1"},
    {"bug-neg-pad-floor", "ci=2 co=3 in=3 k=3 s=2 op=3 bias=1"},
    {"bug-neg-pad-floor", "ci=2 co=2 in=3x3 k=2x3 s=2x1 pad=0x1 op=1x0"},
    /* Size-1 dimensions squeezed; input not a multiple of the stride. */
    {"bug-size1", "ci=2 co=3 in=1 k=3"},
    {"bug-size1", "ci=2 co=2 in=1x4 k=3x2 s=2x2"},
    {"bug-size1", "ci=1 co=2 in=1x1x3 k=2x3x2 bias=1"},
    {"bug-size1", "ci=2 co=2 in=5 k=2 s=3"},
    /* Kernel larger than the stride (overlaps), kernel 64 with stride 2. */
    {"bug-kernel-gt-stride", "ci=2 co=3 in=6 k=64 s=2"},
    {"bug-kernel-gt-stride", "ci=2 co=2 in=7 k=5 s=2"},
    {"bug-kernel-gt-stride", "ci=2 co=2 in=4x3 k=5x3 s=2x2 pad=1x1"},
    /* Crashes on grouped or unusual shapes. */
    {"bug-grouped-crash", "ci=17 co=17 g=17 in=5 k=3 s=2"},
    {"bug-grouped-crash", "ci=4 co=12 g=4 in=3x3 k=3x1 s=1x2 bias=1"},
    {"bug-grouped-crash", "ci=6 co=3 g=3 in=2x2x2 k=2x2x2 wl=GIODHW"},
};
#define NCORPUS (sizeof CORPUS / sizeof CORPUS[0])

int iohw__plan_regressions(iohw_plan *plan, const iohw__profile *pr,
                           iohw_error *err)
{
    char tags[IOHW_PLAN_TAGS_MAX];

    for (size_t i = 0; i < NCORPUS; i++) {
        const int own_dtype = strstr(CORPUS[i].desc, "dt=") != NULL;
        const int ndt = own_dtype ? 1 : pr->regress_dtypes;
        snprintf(tags, sizeof tags, "regressions,%s", CORPUS[i].bug);
        for (int t = 0; t < ndt; t++) {
            iohw_desc d;
            const char *fill = own_dtype ? NULL : (i + (size_t)t) % 2 == 0 ? "exact" : "normal";
            if (iohw__desc_from(CORPUS[i].desc, own_dtype ? 0 : iohw__dtypes[t], fill, &d,
                                err) != 0)
                return -1;
            if (iohw__plan_add(plan, IOHW__CAT_REGRESSIONS, &d, tags, 0, err) != 0)
                return -1;
        }
    }
    return iohw__plan_narrow(plan, pr, err);
}
