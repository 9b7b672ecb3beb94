/*
 * generators/suite.c - the profiles and planning a suite: which cases, with
 * which ids, descriptors, seeds and tags (see suite.h).
 *
 * Ids: ct<R>d.<category>.<dtype>.<counter>, counter = the case's position
 * within its category, four digits or more.
 * Seeds: seed(case) = S * 10^7 + category * 10^6 + counter, S the plan's
 * seed (--seed), so changing S changes every fill and nothing else, and a
 * case's seed says where it came from.
 *
 * Profiles (sizes of each category, see iohw__profile):
 *   smoke  one covering array, a sample of the layout sweep, the shapes in
 *          f32, the regression corpus, every fill in every dtype;
 *   ci     eight covering arrays, every layout permutation (dtypes in
 *          turn), the shapes in every dtype with two fills, the regression
 *          corpus in f32 and f64, every fill in every dtype and rank twice;
 *   full   thirty covering arrays, every layout permutation in every dtype,
 *          the shapes in every dtype and fill, the regression corpus in
 *          every dtype, every fill five times per dtype and rank, and
 *          random valid factor combinations;
 *   models the layers of real networks (suite_models.c) in the three
 *          directions, and nothing else.
 * smoke, ci and full end with the backward category (suite_backward.c):
 * one, fourteen and forty covering arrays over the backward factors, then its
 * designed rows (in f32 and one other dtype in turn in smoke, in every
 * dtype in ci and full).
 */
#include "generators/suite_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "generators/generators.h"
#include "oracle/dtype.h"
#include "oracle/problem.h"

const iohw_dtype iohw__dtypes[4] = {IOHW_F32, IOHW_F64, IOHW_F16, IOHW_BF16};

static const char *const CATEGORY[IOHW__CAT_COUNT] = {
    "pairwise", "layouts", "shapes", "regressions", "fills", "random", "quant", "models",
    "backward"
};
static const char *const FILES[IOHW__CAT_COUNT] = {
    "pairwise.h5", "layouts.h5", "shapes.h5", "regressions.h5", "fills.h5",
    "random.h5", "quant.h5", "models.h5", "backward.h5"
};

static const iohw__profile PROFILES[] = {
    {"smoke", "about 250 small cases in seconds: pairwise coverage, every bug "
              "class of the regression corpus, every fill and dtype",
     1, 0, 1, 1, 1, 1, 1, 1, 0, 1, 0, 1, 1},
    {"ci", "about 2,000 cases for continuous integration: eight covering arrays, "
           "every layout permutation, shapes and regressions in several dtypes",
     8, 1, 2, 4, 2, 2, 3, 2, 0, 5, 0, 14, 4},
    {"full", "about 21,000 cases: thirty covering arrays, every layout in every "
             "dtype, every shape in every dtype and fill, random combinations",
     30, 1, 4, 4, 6, 4, 3, 5, 14000, 5, 0, 40, 4},
    {"models", "the transposed-convolution layers of real networks (DCGAN, U-Net, "
               "HiFi-GAN, MelGAN, EnCodec, 3-D U-Net, V-Net, YOLOv8-seg, FCN-8s, "
               "benchdnn's deconv shapes), f32, exact fill",
     0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0},
};
#define NPROFILES (sizeof PROFILES / sizeof PROFILES[0])

static const char *const PROFILE_NAMES[NPROFILES + 1] = {"smoke", "ci", "full", "models",
                                                          NULL};

const char *const *iohw_profile_names(void)
{
    return PROFILE_NAMES;
}

static const iohw__profile *find_profile(const char *name)
{
    for (size_t i = 0; name != NULL && i < NPROFILES; i++)
        if (strcmp(PROFILES[i].name, name) == 0)
            return &PROFILES[i];
    return NULL;
}

const iohw__profile *iohw__profile_find(const char *name)
{
    return find_profile(name);
}

const char *iohw_profile_about(const char *name)
{
    const iohw__profile *pr = find_profile(name);
    return pr != NULL ? pr->about : NULL;
}

uint64_t iohw__plan_next_seed(const iohw_plan *plan, int category)
{
    return plan->seed * UINT64_C(10000000) + (uint64_t)category * UINT64_C(1000000)
           + (uint64_t)plan->file_cases[category];
}

int iohw__desc_from(const char *text, iohw_dtype dt, const char *fill,
                    iohw_desc *d, iohw_error *err)
{
    char buf[IOHW_DESC_MAX];
    int n = snprintf(buf, sizeof buf, "%s%s%s%s%s", text,
                     dt != 0 ? " dt=" : "", dt != 0 ? iohw_dtype_name(dt) : "",
                     fill != NULL ? " fill=" : "", fill != NULL ? fill : "");
    if (n < 0 || (size_t)n >= sizeof buf)
        return iohw_error_set(err, "suite: descriptor too long: '%s'", text);
    memset(d, 0, sizeof *d);
    if (iohw_desc_parse(buf, d, err) != 0)
        return iohw_error_prefix(err, "suite: '%s'", buf);
    return 0;
}

int iohw__plan_add(iohw_plan *plan, int category, const iohw_desc *d,
                   const char *tags, int keep_seed, iohw_error *err)
{
    iohw_plan_case *c;

    if (category < 0 || category >= IOHW__CAT_COUNT)
        return iohw_error_set(err, "suite: category %d out of range", category);
    if (tags != NULL && strlen(tags) >= IOHW_PLAN_TAGS_MAX)
        return iohw_error_set(err, "suite: tags '%s' too long", tags);
    if (plan->count == plan->cap) {
        int64_t cap = plan->cap > 0 ? 2 * plan->cap : 256;
        iohw_plan_case *v = realloc(plan->cases, (size_t)cap * sizeof *v);
        if (v == NULL)
            return iohw_error_set(err, "suite: out of memory for %lld cases",
                                  (long long)cap);
        plan->cases = v;
        plan->cap = cap;
    }
    c = &plan->cases[plan->count];
    memset(c, 0, sizeof *c);
    c->desc = *d;
    if (!keep_seed)
        c->desc.seed = iohw__plan_next_seed(plan, category);
    c->file = category;
    snprintf(c->tags, sizeof c->tags, "%s", tags != NULL ? tags : "");
    /* A backward case names its direction where others name the category. */
    const char *what = d->p.direction == IOHW_DIR_BWD_D   ? "bwd_d"
                       : d->p.direction == IOHW_DIR_BWD_W ? "bwd_w"
                                                          : CATEGORY[category];
    snprintf(c->id, sizeof c->id, "ct%ud.%s.%s.%04lld", (unsigned)d->p.rank, what, iohw_dtype_name(d->p.dtype),
             (long long)plan->file_cases[category]);
    plan->file_cases[category]++;
    plan->count++;
    return 0;
}

void iohw_plan_free(iohw_plan *plan)
{
    if (plan == NULL)
        return;
    free(plan->cases);
    memset(plan, 0, sizeof *plan);
}

int iohw_plan_profile(const char *profile, uint64_t seed, iohw_plan *plan,
                      iohw_error *err)
{
    /* Test the arguments. */
    if (plan == NULL)
        return iohw_error_set(err, "suite: argument plan is NULL");
    memset(plan, 0, sizeof *plan);
    const iohw__profile *pr = find_profile(profile);
    if (pr == NULL)
        return iohw_error_set(err, "unknown profile '%s' (expected smoke, ci, full or "
                              "models)", profile != NULL ? profile : "(null)");

    snprintf(plan->profile, sizeof plan->profile, "%s", pr->name);
    plan->seed = seed;
    plan->nfiles = IOHW__CAT_COUNT;
    for (int k = 0; k < IOHW__CAT_COUNT; k++)
        plan->files[k] = FILES[k];

    /* The categories, in file order; the models profile has its own only. */
    if (pr->models) {
        if (iohw__plan_models(plan, pr, err) != 0 || iohw__plan_coverage(plan, err) != 0
            || iohw__plan_backward_coverage(plan, err) != 0) {
            iohw_plan_free(plan);
            return -1;
        }
        return 0;
    }
    if (iohw__plan_pairwise(plan, pr, err) != 0 || iohw__plan_layouts(plan, pr, err) != 0
        || iohw__plan_shapes(plan, pr, err) != 0
        || iohw__plan_regressions(plan, pr, err) != 0
        || iohw__plan_fills(plan, pr, err) != 0 || iohw__plan_random(plan, pr, err) != 0
        || iohw__plan_quant(plan, pr, err) != 0 || iohw__plan_backward(plan, pr, err) != 0
        || iohw__plan_coverage(plan, err) != 0
        || iohw__plan_backward_coverage(plan, err) != 0) {
        iohw_plan_free(plan);
        return -1;
    }
    return 0;
}

int iohw_plan_case_tags(const iohw_plan_case *c, char *buf, size_t n)
{
    int len = iohw_problem_tags(&c->desc.p, c->desc.fill, buf, n);
    if (len < 0)
        return -1;
    if (c->tags[0] == '\0')
        return len;
    size_t extra = strlen(c->tags);
    if ((size_t)len + 1 + extra + 1 > n)
        return -1;
    buf[len] = ',';
    memcpy(buf + len + 1, c->tags, extra + 1);
    return len + 1 + (int)extra;
}

int iohw_plan_write_manifest(const iohw_plan *plan, FILE *f, iohw_error *err)
{
    char desc[IOHW_DESC_MAX], tags[1024];
    for (int64_t i = 0; i < plan->count; i++) {
        const iohw_plan_case *c = &plan->cases[i];
        if (iohw_desc_format(&c->desc, desc, sizeof desc) < 0
            || iohw_plan_case_tags(c, tags, sizeof tags) < 0)
            return iohw_error_set(err, "manifest: case %s: descriptor or tags too long",
                                  c->id);
        if (fprintf(f, "%s\t%s\t%s\t%s\n", c->id, plan->files[c->file], desc, tags) < 0)
            return iohw_error_set(err, "manifest: write error");
    }
    return 0;
}
