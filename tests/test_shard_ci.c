/*
 * tests/test_shard_ci.c - `iohw run` under each CI engine's sharding
 * variables (cli/shard_env.h), as the engines set them: the shards
 * partition the smoke suite (every case, by the JSON reports' file and id,
 * in exactly one shard), `iohw report merge` of them diffs as unchanged
 * against the unsharded run, Bazel's status file is touched and its
 * XML_OUTPUT_FILE written; and bad variables stop `iohw run` with exit 2.
 *
 * Each run clears every engine's variables first, so that the test means
 * the same inside a CI job that sets some of them.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "reports/reports.h"
#include "support/shell.h"

#define CLEAN_ENV "env -u TEST_SHARD_INDEX -u TEST_TOTAL_SHARDS -u TEST_SHARD_STATUS_FILE " \
                  "-u XML_OUTPUT_FILE -u GTEST_SHARD_INDEX -u GTEST_TOTAL_SHARDS "        \
                  "-u GTEST_SHARD_STATUS_FILE -u CI_NODE_INDEX -u CI_NODE_TOTAL "          \
                  "-u JOB_COMPLETION_INDEX -u IOHW_SHARD_TOTAL"

#define MAX_SHARDS 3
#define MAX_CASES 4096

static char dir[512];

static void make_dir(void)
{
    snprintf(dir, sizeof dir, "%s/shard-ci-%d", IOHW_TEST_TMP, (int)getpid());
    cr_assert_eq(iohw_test_sh(NULL, "rm -rf '%s' && mkdir -p '%s'", dir, dir), 0);
}

/* One engine: its shard count and, for shard i (0-based), its variables
 * and extra options. */
typedef struct engine {
    const char *name;    /* as the "sharding:" line says it */
    int shards;
    void (*vars)(int i, char *buf, size_t n);
} engine;

static void bazel_vars(int i, char *buf, size_t n)
{
    snprintf(buf, n, "TEST_TOTAL_SHARDS=3 TEST_SHARD_INDEX=%d TEST_SHARD_STATUS_FILE='%s/"
             "bazel-status-%d' XML_OUTPUT_FILE='%s/bazel-%d.xml'", i, dir, i, dir, i);
}
static void gtest_vars(int i, char *buf, size_t n)
{
    snprintf(buf, n, "GTEST_TOTAL_SHARDS=2 GTEST_SHARD_INDEX=%d", i);
}
static void gitlab_vars(int i, char *buf, size_t n)
{
    snprintf(buf, n, "CI_NODE_TOTAL=3 CI_NODE_INDEX=%d", i + 1);
}
/* Shard 0 has its total from the variable, shard 1 from the option. */
static void kubernetes_vars(int i, char *buf, size_t n)
{
    snprintf(buf, n, i == 0 ? "JOB_COMPLETION_INDEX=%d IOHW_SHARD_TOTAL=2"
                            : "JOB_COMPLETION_INDEX=%d", i);
}

static const engine ENGINES[] = {
    {"Bazel's TEST_SHARD_INDEX/TEST_TOTAL_SHARDS", 3, bazel_vars},
    {"gtest's GTEST_SHARD_INDEX/GTEST_TOTAL_SHARDS", 2, gtest_vars},
    {"GitLab's CI_NODE_INDEX/CI_NODE_TOTAL", 3, gitlab_vars},
    {"Kubernetes' JOB_COMPLETION_INDEX and", 2, kubernetes_vars},
};

/* Runs the suite against the backend with the variables; stderr into
 * *out.  Returns the exit status. */
static int run(const char *backend, const char *vars, const char *extra,
               const char *json, char **out)
{
    return iohw_test_sh(out, "( " CLEAN_ENV " %s '%s' run --backend '%s/libiohw_%s.so' "
                        "'%s/smoke' --jobs 2 --timeout 300 --quiet --json '%s' %s > /dev/null )",
                        vars, IOHW_BIN, IOHW_BACKEND_DIR, backend, dir, json, extra);
}

/* The results of a JSON report, keyed "FILE/ID", sorted. */
typedef struct keys {
    char (*k)[300];
    int64_t n;
} keys;

static int key_cmp(const void *a, const void *b) { return strcmp(a, b); }

static keys read_keys(const char *path)
{
    iohw_report rep;
    iohw_error err = {{0}};
    cr_assert_eq(iohw_report_read(path, &rep, &err), 0, "%s", err.msg);
    keys out = {malloc(MAX_CASES * sizeof *out.k), rep.results.count};
    cr_assert(out.k != NULL && out.n <= MAX_CASES);
    for (int64_t i = 0; i < out.n; i++) {
        const iohw_result *r = &rep.results.items[i];
        const char *base = strrchr(r->file, '/');
        snprintf(out.k[i], sizeof out.k[i], "%.200s/%.90s", base ? base + 1 : r->file,
                 r->case_id);
    }
    qsort(out.k, (size_t)out.n, sizeof *out.k, key_cmp);
    iohw_report_free(&rep);
    return out;
}

/* Every case of whole in exactly one shard, and no other case. */
static void expect_partition(const keys *whole, const keys *shards, int n, const char *name)
{
    int64_t total = 0;
    for (int s = 0; s < n; s++) {
        total += shards[s].n;
        cr_expect_gt(shards[s].n, 0, "%s: shard %d is empty", name, s + 1);
    }
    cr_expect_eq(total, whole->n, "%s: the shards hold %lld cases, the run %lld", name,
                 (long long)total, (long long)whole->n);
    for (int64_t i = 0; i < whole->n; i++) {
        int found = 0;
        for (int s = 0; s < n; s++)
            found += bsearch(whole->k[i], shards[s].k, (size_t)shards[s].n,
                             sizeof *shards[s].k, key_cmp) != NULL;
        cr_expect_eq(found, 1, "%s: %s is in %d shards", name, whole->k[i], found);
    }
}

/* Bazel's status file of each shard exists, and its JUnit is written. */
static void expect_bazel_files(int shards)
{
    for (int i = 0; i < shards; i++) {
        char path[700];
        snprintf(path, sizeof path, "%s/bazel-status-%d", dir, i);
        cr_expect_eq(access(path, F_OK), 0, "%s was not touched", path);
        cr_expect_eq(iohw_test_sh(NULL, "grep -q '<testsuite' '%s/bazel-%d.xml'", dir, i), 0,
                     "%s/bazel-%d.xml is not JUnit", dir, i);
    }
}

/* Runs every engine's shards against the backend and checks them against
 * the unsharded run. */
static void shard_with_every_engine(const char *backend)
{
    char whole_json[700], *out = NULL;
    snprintf(whole_json, sizeof whole_json, "%s/whole.json", dir);
    int rc = run(backend, "", "", whole_json, &out);
    cr_assert(rc == 0 || rc == 1, "unsharded run: exit %d\n%s", rc, out);
    cr_expect_null(strstr(out, "sharding:"), "%s", out);
    free(out);
    keys whole = read_keys(whole_json);

    for (size_t e = 0; e < sizeof ENGINES / sizeof ENGINES[0]; e++) {
        const engine *en = &ENGINES[e];
        keys shards[MAX_SHARDS];
        char merge[4096];
        int k = snprintf(merge, sizeof merge, "'%s' report merge", IOHW_BIN);
        for (int i = 0; i < en->shards; i++) {
            char vars[1024], json[700], want[200];
            en->vars(i, vars, sizeof vars);
            snprintf(json, sizeof json, "%s/%s-%zu-%d.json", dir, backend, e, i);
            rc = run(backend, vars, e == 3 && i == 1 ? "--shard-total 2" : "", json, &out);
            cr_assert(rc == 0 || rc == 1, "%s: exit %d\n%s", vars, rc, out);
            snprintf(want, sizeof want, "sharding: %d/%d from %s", i + 1, en->shards, en->name);
            cr_expect(strstr(out, want) != NULL, "'%s' not in:\n%s", want, out);
            free(out);
            shards[i] = read_keys(json);
            k += snprintf(merge + k, sizeof merge - (size_t)k, " '%s'", json);
        }
        expect_partition(&whole, shards, en->shards, en->name);
        rc = iohw_test_sh(&out, "%s -o '%s/merged.json' && '%s' report diff '%s' '%s/merged.json'",
                          merge, dir, IOHW_BIN, whole_json, dir);
        cr_expect_eq(rc, 0, "%s: merge or diff failed:\n%s", en->name, out);
        cr_expect(strstr(out, "0 new failures, 0 fixed,") != NULL
                  && strstr(out, "0 worst ratios changed, 0 cases added, 0 removed") != NULL,
                  "%s: the merged shards differ from the unsharded run:\n%s", en->name, out);
        free(out);
        for (int i = 0; i < en->shards; i++)
            free(shards[i].k);
    }
    expect_bazel_files(3);
    free(whole.k);
}

Test(shard_ci, every_engine_partitions_smoke_and_merges_to_the_unsharded_run, .timeout = 900)
{
    make_dir();
    cr_assert_eq(iohw_test_sh(NULL, "'%s' gen --profile smoke -o '%s/smoke'", IOHW_BIN, dir), 0);
    shard_with_every_engine("reference");
    shard_with_every_engine("fault_dilation_ignored");
    iohw_test_sh(NULL, "rm -rf '%s'", dir);
}

/* Runs `iohw run --list` on one small case with the variables. */
static int list_with(const char *vars, const char *options, char **out)
{
    return iohw_test_sh(out, CLEAN_ENV " %s '%s' run --list '%s/one.h5' %s", vars, IOHW_BIN,
                        dir, options);
}

static void make_one_case(void)
{
    make_dir();
    cr_assert_eq(iohw_test_sh(NULL, "'%s' gen --problem 'n=1 ci=2 co=2 g=1 in=3x3 k=2x2 "
                              "s=2x2 dt=f32' -o '%s/one.h5'", IOHW_BIN, dir), 0);
}

Test(shard_ci, bad_variables_stop_the_run_with_a_usage_error_naming_them)
{
    static const char *const cases[][2] = {
        {"CI_NODE_INDEX=x CI_NODE_TOTAL=2", "CI_NODE_INDEX"},
        {"TEST_SHARD_INDEX=2 TEST_TOTAL_SHARDS=2", "TEST_SHARD_INDEX=2"},
        {"GTEST_SHARD_INDEX=0", "GTEST_TOTAL_SHARDS"},
        {"JOB_COMPLETION_INDEX=1", "IOHW_SHARD_TOTAL"},
        {"CI_NODE_TOTAL=3", "CI_NODE_INDEX"},
    };
    make_one_case();
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char *out = NULL;
        int rc = iohw_test_sh(&out, CLEAN_ENV " %s '%s' run --backend '%s/libiohw_reference.so'"
                              " '%s/one.h5'", cases[k][0], IOHW_BIN, IOHW_BACKEND_DIR, dir);
        cr_expect_eq(rc, 2, "%s: exit %d\n%s", cases[k][0], rc, out);
        cr_expect(strstr(out, cases[k][1]) != NULL, "%s: '%s' not named in:\n%s",
                  cases[k][0], cases[k][1], out);
        cr_expect_null(strstr(out, "PASS"), "%s: the run went on:\n%s", cases[k][0], out);
        free(out);
    }
    iohw_test_sh(NULL, "rm -rf '%s'", dir);
}

Test(shard_ci, an_explicit_shard_wins_over_the_variables)
{
    char *out = NULL;
    make_one_case();
    /* The one case is in shard 1 of 1; the variables would ask for a
     * shard of 1000000 (most likely empty) or are malformed. */
    int rc = list_with("CI_NODE_INDEX=7 CI_NODE_TOTAL=1000000 TEST_SHARD_INDEX=x", "--shard 1/1",
                       &out);
    cr_expect_eq(rc, 0, "exit %d\n%s", rc, out);
    cr_expect_null(strstr(out, "sharding:"), "%s", out);
    cr_expect(strstr(out, "n=1 ci=2") != NULL, "the case is not listed:\n%s", out);
    free(out);
    rc = list_with("JOB_COMPLETION_INDEX=0", "--shard 1/1 --shard-total 2", &out);
    cr_expect_eq(rc, 2, "--shard with --shard-total: exit %d\n%s", rc, out);
    free(out);
    iohw_test_sh(NULL, "rm -rf '%s'", dir);
}
