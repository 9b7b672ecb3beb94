/*
 * generators/suite_layouts.c - layout classes and permutations, and the
 * layout sweep: small problems in every permutation of the data letters
 * and of the weight letters, with and without G, for ranks 1 to 3.
 *
 * Sweep, per rank R: the data layouts are the (R+2)! permutations of N, C
 * and the spatial letters; the weight layouts the (R+2)! permutations of
 * I, O and the spatial letters followed by the (R+3)! with G as well.  Case
 * i takes weight layout i and data layout i mod (R+2)!, so every layout of
 * either kind appears: 30, 144 and 840 cases for ranks 1, 2 and 3.  A
 * sample (smoke) takes SAMPLE cases per rank, spread evenly over that list.
 * The problems have G = 2 or 3 groups, Cg != Mg, a batch of 2, strides,
 * dilations, asymmetric padding and output_padding, so a misread axis
 * changes the result.  Fills exact and normal in turn; dtype f32 (smoke),
 * the four dtypes in turn (ci) or each of them (full).
 */
#include "generators/suite_internal.h"

#include <stdio.h>
#include <string.h>

#include "oracle/problem.h"

#define SAMPLE 12

int iohw__data_class(const char *l)
{
    size_t n = strlen(l);
    if (n >= 2 && l[0] == 'N' && l[1] == 'C')
        return IOHW__XL_FIRST;
    if (n >= 2 && l[0] == 'N' && l[n - 1] == 'C')
        return IOHW__XL_LAST;
    return IOHW__XL_OTHER;
}

int iohw__weight_class(const char *l)
{
    if (strchr(l, 'G') != NULL)
        return IOHW__WL_GROUPED;
    if (l[0] == 'I' && l[1] == 'O')
        return IOHW__WL_IO;
    if (l[0] == 'O' && l[1] == 'I')
        return IOHW__WL_OI;
    if (l[0] == 'D' || l[0] == 'H' || l[0] == 'W')
        return IOHW__WL_SPATIAL;
    return IOHW__WL_OTHER;
}

/* Walks the permutations; with k >= 0 stops at the k-th that counts
 * (writing it to out) and returns k + 1, else returns the count. */
static int64_t walk(const char *letters, int (*cls)(const char *), int want,
                    int64_t k, char *out)
{
    const int n = (int)strlen(letters);
    char buf[8];
    int idx[7];
    int64_t seen = 0;

    if (n < 1 || n > 7)
        return 0;
    for (int i = 0; i < n; i++)
        idx[i] = i;
    for (;;) {
        for (int i = 0; i < n; i++)
            buf[i] = letters[idx[i]];
        buf[n] = '\0';
        if (cls == NULL || cls(buf) == want) {
            if (seen == k) {
                memcpy(out, buf, (size_t)n + 1);
                return k + 1;
            }
            seen++;
        }
        /* Next permutation of idx (lexicographic). */
        int i = n - 2;
        while (i >= 0 && idx[i] > idx[i + 1])
            i--;
        if (i < 0)
            break;
        int j = n - 1;
        while (idx[j] < idx[i])
            j--;
        int t = idx[i];
        idx[i] = idx[j];
        idx[j] = t;
        for (int a = i + 1, b = n - 1; a < b; a++, b--) {
            t = idx[a];
            idx[a] = idx[b];
            idx[b] = t;
        }
    }
    return seen;
}

int64_t iohw__perm_count(const char *letters, int (*cls)(const char *), int want)
{
    return walk(letters, cls, want, -1, NULL);
}

int iohw__perm_nth(const char *letters, int (*cls)(const char *), int want,
                   int64_t k, char *out)
{
    /* One walk when k is below the count (the usual case), two when not. */
    int64_t got = walk(letters, cls, want, k, out);
    if (got == k + 1)
        return 0;
    if (got == 0)
        return -1;
    walk(letters, cls, want, k % got, out);
    return 0;
}

/* The sweep's problem of each rank. */
static const char *const PROBLEMS[3] = {
    "n=2 ci=6 co=12 g=3 in=5 k=3 s=2 pad=1:0 op=1 bias=1",
    "n=2 ci=6 co=12 g=3 in=3x5 k=3x2 s=2x1 d=1x2 pad=1:0x0:1 op=1x0 bias=1",
    "n=2 ci=4 co=6 g=2 in=2x3x4 k=2x2x2 s=1x2x1 d=1x1x2 pad=0:1x1:0x0 op=0x1x0 bias=1",
};

/* Adds case i of rank R with the given dtype and fill. */
static int add_case(iohw_plan *plan, int R, int64_t i, iohw_dtype dt,
                    const char *fill, iohw_error *err)
{
    const char *sp = iohw_spatial_letters(R);
    char data[16], plain[16], grouped[16], xl[16], wl[16], text[256];
    iohw_desc d;

    snprintf(data, sizeof data, "NC%s", sp);
    snprintf(plain, sizeof plain, "IO%s", sp);
    snprintf(grouped, sizeof grouped, "GIO%s", sp);
    const int64_t nplain = iohw__perm_count(plain, NULL, 0);
    iohw__perm_nth(data, NULL, 0, i, xl);
    if (i < nplain)
        iohw__perm_nth(plain, NULL, 0, i, wl);
    else
        iohw__perm_nth(grouped, NULL, 0, i - nplain, wl);
    snprintf(text, sizeof text, "%s xl=%s wl=%s", PROBLEMS[R - 1], xl, wl);
    if (iohw__desc_from(text, dt, fill, &d, err) != 0)
        return -1;
    return iohw__plan_add(plan, IOHW__CAT_LAYOUTS, &d, "layouts", 0, err);
}

int iohw__plan_layouts(iohw_plan *plan, const iohw__profile *pr,
                       iohw_error *err)
{
    for (int R = 1; R <= 3; R++) {
        const char *sp = iohw_spatial_letters(R);
        char plain[16], grouped[16];
        snprintf(plain, sizeof plain, "IO%s", sp);
        snprintf(grouped, sizeof grouped, "GIO%s", sp);
        const int64_t n = iohw__perm_count(plain, NULL, 0)
                          + iohw__perm_count(grouped, NULL, 0);
        const int64_t m = pr->layouts_all ? n : SAMPLE;

        for (int64_t j = 0; j < m; j++) {
            const int64_t i = pr->layouts_all ? j : j * n / m;
            const char *fill = i % 2 == 0 ? "exact" : "normal";
            if (pr->layouts_dtypes == 4) {
                for (int t = 0; t < 4; t++)
                    if (add_case(plan, R, i, iohw__dtypes[t], fill, err) != 0)
                        return -1;
            } else {
                iohw_dtype dt = pr->layouts_dtypes == 2 ? iohw__dtypes[i % 4]
                                                        : IOHW_F32;
                if (add_case(plan, R, i, dt, fill, err) != 0)
                    return -1;
            }
        }
    }
    return 0;
}
