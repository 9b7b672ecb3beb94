/*
 * generators/suite.h - suites: the smoke, ci and full profiles.
 *
 * A profile is a list of cases in categories, one HDF5 file per category:
 *   pairwise     a covering array over the problem's factors (every pair of
 *                factor values that can coexist is in some case);
 *   layouts      small problems in every permutation of the layout letters;
 *   shapes       edge cases: size-1 dimensions, kernel larger than the
 *                input, stride larger than the kernel, crops to one
 *                position, output_padding in real and in empty positions,
 *                kernel 64, C_in = C_out / G, depthwise G = 17, batches;
 *   regressions  one or more cases per known bug (tag bug-<name>), built so
 *                that an implementation with that bug fails them;
 *   fills        every fill in every dtype;
 *   random       (full only) valid factor combinations drawn at random;
 *   backward     the backward directions (specification section 13): a
 *                covering array over their factors and rows designed
 *                against the bugs bug-bwd-<name> (suite_backward.c).
 * Case ids read <rank>.<category>.<dtype>.<counter>, e.g.
 * ct2d.pairwise.f32.0042, the counter running within the category (a
 * backward case names its direction instead: ct2d.bwd_w.f16.0007); the same
 * profile and seed always give the same cases with the same numbers.
 *
 * A suite directory holds the category files (pairwise.h5, ...) and
 * manifest.txt, one line per case: id TAB file TAB descriptor TAB tags.
 */
#ifndef IOHW_GEN_SUITE_H
#define IOHW_GEN_SUITE_H

#include <stdint.h>
#include <stdio.h>

#include "cases/case.h"
#include "oracle/descriptor.h"
#include "oracle/error.h"

#define IOHW_PLAN_TAGS_MAX 128

/* The profiles, NULL-terminated: "smoke", "ci", "full". */
const char *const *iohw_profile_names(void);

/* One line describing a profile, or NULL for an unknown name. */
const char *iohw_profile_about(const char *name);

/* One planned case: what iohw_make_case needs. */
typedef struct iohw_plan_case {
    char id[IOHW_CASE_ID_MAX];
    int file;                         /* index into iohw_plan.files */
    iohw_desc desc;                   /* validated, seed set */
    char tags[IOHW_PLAN_TAGS_MAX];    /* extra tags: category, bug, ... */
} iohw_plan_case;

#define IOHW_PLAN_MAX_FILES 12

typedef struct iohw_plan {
    char profile[16];
    uint64_t seed;
    iohw_plan_case *cases;
    int64_t count;
    int64_t cap;
    int nfiles;
    const char *files[IOHW_PLAN_MAX_FILES];  /* "pairwise.h5", ... (static) */
    int64_t file_cases[IOHW_PLAN_MAX_FILES];
    /* Pairwise coverage of the whole plan, computed from every case's
     * problem classified into factor values. */
    int nfactors;
    int pairwise_rows;                /* rows of the covering arrays */
    int64_t pairs_coexisting;
    int64_t pairs_covered;
    /* Appended: set by iohw_plan_for_claim (generators/claim.h), else 0. */
    int64_t claim_pairs;            /* pairs the backend claims */
    int64_t claim_covered;          /* of those, pairs this plan holds */
    int64_t profile_cases;          /* cases of the plain profile */
    int64_t profile_claimed;        /* of those, cases the backend accepts */
    int64_t profile_claim_covered;  /* claimed pairs those cases hold */
    /* Appended: pairwise coverage of the backward cases over the backward
     * factors (suite_backward.c), like the forward figures above. */
    int bwd_nfactors;
    int bwd_rows;                   /* rows of its covering arrays */
    int64_t bwd_pairs_coexisting;
    int64_t bwd_pairs_covered;
} iohw_plan;

/* Plans a profile: every case's id, file, descriptor and tags, without
 * computing anything.  seed varies the fills (the problems stay the same).
 * Fails on an unknown profile name.  Free with iohw_plan_free. */
int iohw_plan_profile(const char *profile, uint64_t seed, iohw_plan *plan,
                      iohw_error *err);
void iohw_plan_free(iohw_plan *plan);

/* The full tag list of a planned case (derived tags, then its extra tags)
 * into buf; the length, or -1 when buf is too small. */
int iohw_plan_case_tags(const iohw_plan_case *c, char *buf, size_t n);

/* Prints the manifest: one line per case, id TAB file TAB descriptor TAB
 * tags.  Returns 0, or -1 on a write error. */
int iohw_plan_write_manifest(const iohw_plan *plan, FILE *f, iohw_error *err);

/* What writing a suite did. */
typedef struct iohw_suite_report {
    int64_t cases;
    int64_t bytes;          /* every file written, manifest included */
    double seconds;         /* wall time */
    int64_t file_bytes[IOHW_PLAN_MAX_FILES];
} iohw_suite_report;

/* Writes a planned suite into dir (created when missing; the plan's files
 * and manifest.txt are replaced): every case made (inputs filled, oracle
 * run) by `threads` worker threads (<= 1: the calling thread) and written
 * in plan order, so the files do not depend on the thread count.  log, when
 * not NULL, gets one line per file written.  On failure the message names
 * the case or the file. */
int iohw_suite_write(const iohw_plan *plan, const char *dir, int threads,
                     FILE *log, iohw_suite_report *report, iohw_error *err);

#endif
