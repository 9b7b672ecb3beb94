/*
 * generators/suite_internal.h - what the suite files share (not public).
 *
 *   suite.c              profiles, planning, ids, seeds, manifest
 *   suite_write.c        making and writing the cases (threads)
 *   suite_factors.c      the pairwise factors: builder, classifier,
 *                        predicate
 *   suite_pairwise.c     the pairwise and random categories, coverage
 *   suite_layouts.c      the layout sweep
 *   suite_shapes.c       the shapes sweep and the fills category
 *   suite_regressions.c  the regression corpus
 *   suite_narrow.c       its narrow rows (special values, conversions,
 *                        blocked-loop tails)
 *   suite_quant.c        the quantized category
 *   suite_models.c       the layers of real networks (profile models)
 *   suite_backward.c     the backward category: covering arrays over the
 *                        backward factors, their coverage
 *   suite_backward_rows.c  its designed rows (bug-bwd-<name>)
 */
#ifndef IOHW_SUITE_INTERNAL_H
#define IOHW_SUITE_INTERNAL_H

#include <stdint.h>

#include "generators/pairwise.h"
#include "generators/suite.h"
#include "iohw/backend.h"
#include "oracle/error.h"

/* Categories; each is one file of the suite. */
enum {
    IOHW__CAT_PAIRWISE,
    IOHW__CAT_LAYOUTS,
    IOHW__CAT_SHAPES,
    IOHW__CAT_REGRESSIONS,
    IOHW__CAT_FILLS,
    IOHW__CAT_RANDOM,
    IOHW__CAT_QUANT,
    IOHW__CAT_MODELS,
    IOHW__CAT_BACKWARD,
    IOHW__CAT_COUNT
};

/* How big each category is in a profile. */
typedef struct iohw__profile {
    const char *name;
    const char *about;
    int pairwise_arrays;    /* covering arrays (each with its own seed) */
    int layouts_all;        /* 1: every permutation; 0: a sample */
    int layouts_dtypes;     /* 1: f32 only; 2: dtypes in turn; 4: each dtype */
    int shapes_dtypes;      /* 1: f32; 4: every dtype */
    int shapes_fills;       /* fills per shape and dtype (1, 2 or 6) */
    int regress_dtypes;     /* 1: f32 (+ the f16 cases); 2: f32, f64; 4: all */
    int fills_ranks;        /* 1: ranks in turn; 3: every rank */
    int fills_seeds;        /* cases per fill, dtype and rank */
    int random_cases;       /* random category size */
    int quant_variants;     /* variants of each quantized row (suite_quant.c) */
    int models;             /* 1: the models category alone */
    int backward_arrays;    /* covering arrays of the backward category */
    int backward_dtypes;    /* its designed rows: 1 f32 + one in turn; 4 */
} iohw__profile;

/* The profile of that name, or NULL. */
const iohw__profile *iohw__profile_find(const char *name);

/* Adds a case of a category to the plan: sets the id (from the category and
 * its counter) and, unless keep_seed, the seed (from the plan's seed, the
 * category and the counter).  d must be validated. */
int iohw__plan_add(iohw_plan *plan, int category, const iohw_desc *d,
                   const char *tags, int keep_seed, iohw_error *err);

/* The seed the next case of a category would get. */
uint64_t iohw__plan_next_seed(const iohw_plan *plan, int category);

/* Parses "DESC" with dt and fill appended; fails with the text. */
int iohw__desc_from(const char *text, iohw_dtype dt, const char *fill,
                    iohw_desc *d, iohw_error *err);

/* The categories. */
int iohw__plan_pairwise(iohw_plan *plan, const iohw__profile *pr,
                        iohw_error *err);
int iohw__plan_random(iohw_plan *plan, const iohw__profile *pr,
                      iohw_error *err);
int iohw__plan_layouts(iohw_plan *plan, const iohw__profile *pr,
                       iohw_error *err);
int iohw__plan_shapes(iohw_plan *plan, const iohw__profile *pr,
                      iohw_error *err);
int iohw__plan_fills(iohw_plan *plan, const iohw__profile *pr,
                     iohw_error *err);
int iohw__plan_regressions(iohw_plan *plan, const iohw__profile *pr,
                           iohw_error *err);
/* Problems stated in a framework's convention (suite_conv.c), planned at
 * the end of the shapes file. */
int iohw__plan_conventions(iohw_plan *plan, const iohw__profile *pr,
                           iohw_error *err);
/* The quantized category (suite_quant.c): all of it, and its random rows. */
int iohw__plan_quant(iohw_plan *plan, const iohw__profile *pr, iohw_error *err);
int iohw__plan_quant_random(iohw_plan *plan, const iohw__profile *pr,
                            iohw_error *err);
/* The designed quantized rows (suite_qdesign.c), in quant.h5. */
int iohw__plan_qdesign(iohw_plan *plan, const iohw__profile *pr, iohw_error *err);
/* Its rows of the zp_y-before-rounding bug, last in quant.h5. */
int iohw__plan_qzp_y(iohw_plan *plan, const iohw__profile *pr, iohw_error *err);
/* The rows of the deployment fills (qdeploy, qwide, qshift), every
 * profile; iohw__plan_qzp_y ends with them (generators/suite_qdesign.c). */
int iohw__plan_qdeploy(iohw_plan *plan, iohw_error *err);
/* Adds the rows of the covering array of s, each through add
 * (suite_pairwise.c); 0, or -1 with the reason. */
typedef int (*iohw__plan_row_fn)(iohw_plan *plan, const int *values, iohw_error *err);
int iohw__plan_array(iohw_plan *plan, const iohw_pw_spec *s, iohw__plan_row_fn add,
                     iohw_error *err);
/* The rows int8 libraries claim (suite_qlib.c), at the end of quant.h5. */
int iohw__plan_qlib(iohw_plan *plan, const iohw__profile *pr, iohw_error *err);
/* The narrow rows of the corpus (suite_narrow.c), planned after the rest. */
int iohw__plan_narrow(iohw_plan *plan, const iohw__profile *pr,
                      iohw_error *err);
/* The layers of real networks (suite_models.c), when pr->models. */
int iohw__plan_models(iohw_plan *plan, const iohw__profile *pr,
                      iohw_error *err);

/* The backward category (suite_backward.c): its covering arrays, then its
 * designed rows (suite_backward_rows.c); the coverage of the plan's
 * backward cases over the backward factors (sets plan->bwd_*). */
int iohw__plan_backward(iohw_plan *plan, const iohw__profile *pr, iohw_error *err);
int iohw__plan_backward_rows(iohw_plan *plan, const iohw__profile *pr,
                             iohw_error *err);
int iohw__plan_backward_coverage(iohw_plan *plan, iohw_error *err);
/* Adds the backward case of descriptor text, direction, dtype and fill. */
int iohw__plan_backward_add(iohw_plan *plan, const char *text, int32_t dir,
                            iohw_dtype dt, const char *fill, const char *tags,
                            iohw_error *err);

/* The pairwise factors (suite_factors.c): the spec of the covering arrays
 * (factor values, the validity predicate), the builder of the problem of
 * complete factor values (variant: the case's counter; -1 when the values
 * contradict each other or the problem is too large) and the classifier
 * (factor values of a problem, -1 where a value is outside a factor). */
#define IOHW__NFACTORS 18
#define IOHW__FACTOR_FILL 17
#define IOHW__FACTOR_RANK 0
#define IOHW__FACTOR_XL 15
#define IOHW__FACTOR_WL 16
void iohw__factors_spec(iohw_pw_spec *s, uint64_t seed);
int iohw__factors_build(const int *v, int64_t variant, iohw_problem *p);
/* Variant 0 of complete factor values with the weight layout of the class
 * "other" set to O<spatial>I (TFLite's OHWI); -1 when the row's weight
 * layout is of another class or the problem breaks a value. */
int iohw__factors_build_deployed(const int *v, iohw_problem *p);
void iohw__factors_classify(const iohw_problem *p, const char *fill, int *v);

/* Pairwise coverage of every case of the plan (sets the plan's pairs_*
 * and nfactors). */
int iohw__plan_coverage(iohw_plan *plan, iohw_error *err);

/* The dtypes in their usual order: f32, f64, f16, bf16. */
extern const iohw_dtype iohw__dtypes[4];

/* Layout classes (suite_layouts.c). */
enum { IOHW__XL_FIRST, IOHW__XL_LAST, IOHW__XL_OTHER };
enum { IOHW__WL_IO, IOHW__WL_OI, IOHW__WL_SPATIAL, IOHW__WL_GROUPED, IOHW__WL_OTHER };

/* Data layouts: NC... first, N...C last, anything else other. */
int iohw__data_class(const char *layout);
/* Weight layouts: with G grouped; else IO..., OI..., a spatial letter
 * first, or other. */
int iohw__weight_class(const char *layout);

/* Permutations of the letters of `letters` (at most 7), in lexicographic
 * order of positions.  With cls NULL every permutation counts, else only
 * those whose class is want.  iohw__perm_nth writes the (k mod count)-th
 * into out (8 bytes) and returns 0, or -1 when none counts;
 * iohw__perm_count returns the count. */
int iohw__perm_nth(const char *letters, int (*cls)(const char *), int want,
                   int64_t k, char *out);
int64_t iohw__perm_count(const char *letters, int (*cls)(const char *),
                         int want);

#endif
