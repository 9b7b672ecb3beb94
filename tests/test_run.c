/*
 * tests/test_run.c - `iohw run` (harness/run.h): a small suite run against
 * the reference backend and the misbehaving ones, each misbehaviour reported
 * with its status while the other cases of the same run still pass; shards,
 * filters, bad case files, journal and resume, exit codes of the command.
 *
 * The suite (12 cases in two files) is written fresh by each test in its own
 * directory.  Which cases each fault backend hits comes from the backends'
 * own descriptions (backends/faults/): crash - groups > 1; hang - some
 * output_padding > 0; claim_then_error - rank 3; oob_write, input_write,
 * unwritten - every problem.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <ftw.h>
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cases/case.h"
#include "generators/generators.h"
#include "harness/run.h"
#include "sandbox/worker.h"
#include "support/run_options.h"

#define NCASES 12

typedef struct spec {
    const char *id;
    const char *desc;
    int grouped, out_pad, rank3;
} spec;

/* File a.h5 gets the "a." cases, b.h5 the "b." ones. */
static const spec specs[NCASES] = {
    {"a.r1", "ci=2 co=3 in=5 k=3 s=2", 0, 0, 0},
    {"a.g2", "ci=4 co=6 g=2 in=4 k=3 s=2 bias=1", 1, 0, 0},
    {"a.r3", "ci=2 co=2 in=3x2x2 k=2 dt=f64", 0, 0, 1},
    {"a.op", "ci=2 co=2 in=6 k=3 s=2 op=1 dt=f16", 0, 1, 0},
    {"a.r2", "ci=3 co=2 in=4x3 k=2x3 pad=1:0x0:1", 0, 0, 0},
    {"a.bf", "ci=2 co=4 in=4x4 k=3 dt=bf16 fill=exact", 0, 0, 0},
    {"b.g3", "n=2 ci=6 co=3 g=3 in=3x5 k=2x3 d=2x1 bias=1 xl=NHWC wl=OIHW", 1, 0, 0},
    {"b.dw", "ci=4 co=4 g=4 in=7 k=3 s=2", 1, 0, 0},
    {"b.r3", "ci=1 co=2 in=2x2x3 k=2 s=2", 0, 0, 1},
    {"b.f64", "ci=3 co=5 in=6 k=2 s=3 dt=f64 bias=1", 0, 0, 0},
    {"b.cl", "ci=2 co=2 in=3x4 k=1x2 xl=NHWC", 0, 0, 0},
    {"b.big", "n=2 ci=3 co=4 in=5x5 k=3 s=2 pad=1", 0, 0, 0},
};

typedef struct suite {
    char dir[400];
    char a[512], b[512];
    const char *inputs[1];
} suite;

static void write_file(const char *path, char prefix)
{
    iohw_error err = {{0}};
    iohw_case_file *f = iohw_case_file_create(path, &err);
    cr_assert_not_null(f, "%s", err.msg);
    for (int i = 0; i < NCASES; i++) {
        if (specs[i].id[0] != prefix)
            continue;
        iohw_desc d;
        iohw_case c;
        cr_assert_eq(iohw_desc_parse(specs[i].desc, &d, &err), 0, "%s", err.msg);
        cr_assert_eq(iohw_make_case(&d, specs[i].id, NULL, 1, &c, &err), 0, "%s", err.msg);
        cr_assert_eq(iohw_case_file_write(f, &c, &err), 0, "%s", err.msg);
        iohw_case_free(&c);
    }
    cr_assert_eq(iohw_case_file_close(f, &err), 0, "%s", err.msg);
}

static void make_suite(suite *s, const char *name)
{
    snprintf(s->dir, sizeof s->dir, "%s/run-%d-%s", IOHW_TEST_TMP, (int)getpid(), name);
    mkdir(s->dir, 0755);
    snprintf(s->a, sizeof s->a, "%s/a.h5", s->dir);
    snprintf(s->b, sizeof s->b, "%s/b.h5", s->dir);
    write_file(s->a, 'a');
    write_file(s->b, 'b');
    s->inputs[0] = s->dir;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    return flag == FTW_DP ? rmdir(path) : unlink(path);
}

/* Removes the suite's directory (at the end of a test that passed). */
static void remove_suite(const suite *s)
{
    nftw(s->dir, remove_one, 8, FTW_DEPTH | FTW_PHYS);
}

static void backend_path(char *buf, size_t n, const char *name)
{
    snprintf(buf, n, "%s/libiohw_%s.so", IOHW_BACKEND_DIR, name);
}

static iohw_run_options options(const suite *s, const char *backend)
{
    static char path[512];
    backend_path(path, sizeof path, backend);
    return iohw_test_run_options(path, s->inputs);
}

static void run_ok(const iohw_run_options *o, iohw_run_results *res)
{
    iohw_error err = {{0}};
    cr_assert_eq(iohw_run(o, res, &err), 0, "%s", err.msg);
}

static const iohw_result *find(const iohw_run_results *r, const char *id)
{
    for (int64_t i = 0; i < r->count; i++)
        if (strcmp(r->items[i].case_id, id) == 0)
            return &r->items[i];
    cr_assert_fail("case %s missing from the results", id);
    return NULL;
}

static const spec *spec_of(const char *id)
{
    for (int i = 0; i < NCASES; i++)
        if (strcmp(specs[i].id, id) == 0)
            return &specs[i];
    cr_assert_fail("unknown case %s", id);
    return NULL;
}

/* Every case has status hit when pick says so, PASS otherwise; messages of
 * hit cases contain `needle`. */
static void expect_statuses(const iohw_run_results *r, int (*pick)(const spec *),
                            iohw_result_status hit, const char *needle)
{
    cr_assert_eq(r->count, NCASES);
    for (int64_t i = 0; i < r->count; i++) {
        const iohw_result *x = &r->items[i];
        int is_hit = pick(spec_of(x->case_id));
        iohw_result_status want = is_hit ? hit : IOHW_RESULT_PASS;
        cr_expect_eq(x->status, want, "%s: %s, expected %s (%s)", x->case_id,
                     iohw_result_status_name(x->status), iohw_result_status_name(want),
                     x->message);
        if (is_hit && needle != NULL)
            cr_expect_not_null(strstr(x->message, needle), "%s: message '%s' lacks '%s'",
                               x->case_id, x->message, needle);
    }
}

static int pick_all(const spec *s) { (void)s; return 1; }
static int pick_grouped(const spec *s) { return s->grouped; }
static int pick_out_pad(const spec *s) { return s->out_pad; }
static int pick_rank3(const spec *s) { return s->rank3; }

/* --- statuses ---------------------------------------------------------- */

Test(run, the_reference_backend_passes_every_case_in_file_then_id_order)
{
    suite s;
    iohw_run_results res;
    make_suite(&s, "ref");
    iohw_run_options o = options(&s, "reference");
    run_ok(&o, &res);
    expect_statuses(&res, pick_all, IOHW_RESULT_PASS, NULL);
    cr_assert_eq(iohw_run_exit_code(&res), 0);
    cr_assert_str_eq(res.backend_name, "reference");
    /* a.h5 before b.h5; ids in byte order inside each file. */
    static const char *const order[NCASES] = {"a.bf", "a.g2", "a.op", "a.r1", "a.r2", "a.r3",
                                              "b.big", "b.cl", "b.dw", "b.f64", "b.g3", "b.r3"};
    for (int i = 0; i < NCASES; i++) {
        cr_assert_str_eq(res.items[i].case_id, order[i]);
        cr_assert_str_eq(res.items[i].file, i < 6 ? s.a : s.b);
        cr_assert_str_eq(res.items[i].descriptor[0] ? "set" : "", "set");
        cr_assert_gt(res.items[i].elements, 0);
        cr_assert_geq(res.items[i].seconds, 0.0);
        cr_assert_geq(res.wall[i], res.items[i].seconds);
    }
    iohw_run_results_free(&res);
    remove_suite(&s);
}

Test(run, a_suite_under_a_path_of_600_characters_runs_every_case)
{
    /* Six nested directories of 100 characters each below the scratch
     * directory: every record between the processes carries the full path. */
    static char dir[1024], a[1100], b[1100];
    int n = snprintf(dir, sizeof dir, "%s/run-%d-long", IOHW_TEST_TMP, (int)getpid());
    mkdir(dir, 0755);
    for (int i = 0; i < 6; i++) {
        n += snprintf(dir + n, sizeof dir - (size_t)n, "/%d%0*d", i, 99, 0);
        cr_assert_eq(mkdir(dir, 0755), 0, "mkdir %s", dir);
    }
    cr_assert_gt(strlen(dir), 600);
    snprintf(a, sizeof a, "%s/a.h5", dir);
    snprintf(b, sizeof b, "%s/b.h5", dir);
    write_file(a, 'a');
    write_file(b, 'b');
    suite s;
    memset(&s, 0, sizeof s);
    s.inputs[0] = dir;
    iohw_run_options o = options(&s, "reference");
    iohw_run_results res;
    run_ok(&o, &res);
    expect_statuses(&res, pick_all, IOHW_RESULT_PASS, NULL);
    for (int64_t i = 0; i < res.count; i++)
        cr_assert_str_eq(res.items[i].file, i < 6 ? a : b);
    iohw_run_results_free(&res);
    snprintf(s.dir, sizeof s.dir, "%s/run-%d-long", IOHW_TEST_TMP, (int)getpid());
    remove_suite(&s);
}

/* A misbehaving backend and what the run must make of it: its cases (by
 * pick) get status hit with needle in the message, every other case
 * passes, and what more each checks (extra). */
typedef enum { PICK_ALL, PICK_GROUPED, PICK_OUT_PAD, PICK_RANK3 } pick_kind;
typedef enum { EXTRA_NONE, EXTRA_LISTING_KEPT, EXTRA_QUICK, EXTRA_UNWRITTEN } extra_kind;

typedef struct misbehaviour {   /* copied into the test's process: no pointers */
    char name[24];              /* the suite's directory, named in a failure */
    char backend[32];
    int jobs, timeout;          /* 0: the defaults */
    pick_kind pick;
    iohw_result_status hit;
    char needle[96];
    int exit_code;              /* -1: not checked */
    extra_kind extra;
} misbehaviour;

static misbehaviour misbehaviours[] = {
    {"crash", "fault_crash", 0, 0, PICK_GROUPED, IOHW_RESULT_CRASH,
     "killed by signal SIGSEGV (Segmentation fault)", 1, EXTRA_LISTING_KEPT},
    {"hang", "fault_hang", 0, 1, PICK_OUT_PAD, IOHW_RESULT_TIMEOUT,
     "run() did not return within 1 s", 1, EXTRA_QUICK},
    /* Writing past the end of y is a crash at the guard page. */
    {"oob", "fault_oob_write", 3, 0, PICK_ALL, IOHW_RESULT_CRASH,
     "the first byte past the end of y", -1, EXTRA_NONE},
    {"inwrite", "fault_input_write", 0, 0, PICK_ALL, IOHW_RESULT_CRASH,
     "inside x, an input mapped read-only: looks like a write to an input", -1, EXTRA_NONE},
    {"unwritten", "fault_unwritten", 0, 0, PICK_ALL, IOHW_RESULT_FAIL, "never written", -1,
     EXTRA_UNWRITTEN},
    /* An error on a claimed case is an error with the backend's text. */
    {"claim", "fault_claim_then_error", 0, 0, PICK_RANK3, IOHW_RESULT_ERROR,
     "run() returned IOHW_BACKEND_ERROR: 3-d transposed convolution is not implemented", -1,
     EXTRA_NONE},
};

static int (*const picks[])(const spec *) = {pick_all, pick_grouped, pick_out_pad,
                                             pick_rank3};

/* The checks beyond the statuses. */
static void check_extra(extra_kind e, const suite *s, const iohw_run_results *res)
{
    if (e == EXTRA_LISTING_KEPT) {
        /* A crashed case still carries what the listing knew of it. */
        const iohw_result *g = find(res, "a.g2");
        cr_assert_str_eq(g->file, s->a);
        cr_assert_not_null(strstr(g->descriptor, "g=2"));
        cr_assert_not_null(strstr(g->tags, "grouped"), "%s", g->tags);
    } else if (e == EXTRA_QUICK) {
        cr_assert_lt(res->seconds, 15.0);
    } else if (e == EXTRA_UNWRITTEN) {
        /* a.r1: N = 1, C_out = 3, O = (5 - 1)*2 + (3 - 1) + 1 = 11; the
         * backend skips the last W position: 1 * 3 = 3 elements, all of
         * the 33. */
        const iohw_result *r = find(res, "a.r1");
        cr_assert_eq(r->elements, 33);
        cr_assert_eq(r->unwritten, 3);
        cr_assert_eq(r->mismatches, 3);
        cr_assert_gt(r->npoints, 0);
        cr_assert_eq(r->points[0].coord[4], 10, "first mismatch at w = %lld",
                     (long long)r->points[0].coord[4]);
    }
}

ParameterizedTestParameters(run, a_misbehaving_backend_hits_only_its_cases)
{
    return cr_make_param_array(misbehaviour, misbehaviours,
                               sizeof misbehaviours / sizeof misbehaviours[0]);
}

ParameterizedTest(misbehaviour *m, run, a_misbehaving_backend_hits_only_its_cases)
{
    suite s;
    iohw_run_results res;
    make_suite(&s, m->name);
    iohw_run_options o = options(&s, m->backend);
    if (m->jobs > 0)
        o.jobs = m->jobs;
    if (m->timeout > 0)
        o.timeout = m->timeout;
    run_ok(&o, &res);
    expect_statuses(&res, picks[m->pick], m->hit, m->needle);
    if (m->exit_code >= 0)
        cr_assert_eq(iohw_run_exit_code(&res), m->exit_code, "%s", m->name);
    check_extra(m->extra, &s, &res);
    iohw_run_results_free(&res);
    remove_suite(&s);
}

Test(run, unsupported_from_run_after_a_claim_is_an_error_not_a_skip)
{
    suite s;
    iohw_run_results res;
    make_suite(&s, "claimunsup");
    iohw_run_options o = options(&s, "broken_run_unsupported");
    o.filter = "id=a.r1";
    run_ok(&o, &res);
    cr_assert_eq(res.count, 1);
    cr_assert_eq(res.items[0].status, IOHW_RESULT_ERROR);
    cr_assert_str_eq(res.items[0].message, "run() returned IOHW_UNSUPPORTED: "
                                           "broken_run_unsupported: not implemented after all");
    iohw_run_results_free(&res);
    remove_suite(&s);
}

Test(run, one_worker_and_several_give_the_same_statuses)
{
    suite s;
    iohw_run_results one, three;
    make_suite(&s, "jobs");
    iohw_run_options o = options(&s, "fault_crash");
    o.jobs = 1;
    run_ok(&o, &one);
    o.jobs = 3;
    run_ok(&o, &three);
    cr_assert_eq(one.count, three.count);
    for (int64_t i = 0; i < one.count; i++) {
        cr_assert_str_eq(one.items[i].case_id, three.items[i].case_id);
        cr_assert_eq(one.items[i].status, three.items[i].status);
    }
    iohw_run_results_free(&one);
    iohw_run_results_free(&three);
    remove_suite(&s);
}

/* --- selection --------------------------------------------------------- */

Test(run, shards_partition_the_cases)
{
    suite s;
    make_suite(&s, "shard");
    iohw_run_options o = options(&s, "reference");
    int seen[NCASES] = {0};
    for (int k = 1; k <= 3; k++) {
        iohw_run_results res;
        o.shard_index = k;
        o.shard_count = 3;
        run_ok(&o, &res);
        for (int64_t i = 0; i < res.count; i++) {
            const spec *sp = spec_of(res.items[i].case_id);
            seen[sp - specs]++;
            cr_expect_eq(res.items[i].status, IOHW_RESULT_PASS);
        }
        iohw_run_results_free(&res);
    }
    for (int i = 0; i < NCASES; i++)
        cr_expect_eq(seen[i], 1, "%s ran in %d shards", specs[i].id, seen[i]);
    remove_suite(&s);
}

Test(run, a_filter_on_groups_selects_the_grouped_cases)
{
    suite s;
    iohw_run_results res;
    make_suite(&s, "filter");
    iohw_run_options o = options(&s, "reference");
    o.filter = "g>1";
    run_ok(&o, &res);
    cr_assert_eq(res.count, 3);
    for (int64_t i = 0; i < res.count; i++)
        cr_expect(spec_of(res.items[i].case_id)->grouped, "%s", res.items[i].case_id);
    iohw_run_results_free(&res);
    remove_suite(&s);
}

Test(run, a_filter_of_two_terms_selects_the_cases_matching_both)
{
    suite s;
    iohw_run_results res;
    make_suite(&s, "filter2");
    iohw_run_options o = options(&s, "reference");
    o.filter = "id=b.*,rank=2";
    run_ok(&o, &res);
    cr_assert_eq(res.count, 3);   /* b.big, b.cl, b.g3 */
    cr_assert_str_eq(res.items[0].case_id, "b.big");
    cr_assert_str_eq(res.items[1].case_id, "b.cl");
    cr_assert_str_eq(res.items[2].case_id, "b.g3");
    iohw_run_results_free(&res);
    remove_suite(&s);
}

Test(run, list_prints_the_selected_ids_with_descriptors)
{
    suite s;
    make_suite(&s, "list");
    iohw_run_options o = options(&s, "reference");
    o.filter = "rank=3";
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    iohw_error err = {{0}};
    cr_assert_eq(iohw_run_list(&o, out, &err), 2, "%s", err.msg);
    fclose(out);
    cr_assert_not_null(strstr(text, "a.r3\tn=1 ci=2 co=2"), "%s", text);
    cr_assert_not_null(strstr(text, "b.r3\tn=1 ci=1 co=2"), "%s", text);
    free(text);
    remove_suite(&s);
}

/* --- bad case files ---------------------------------------------------- */

Test(run, an_unreadable_file_is_invalid_and_the_rest_still_runs)
{
    suite s;
    iohw_run_results res;
    make_suite(&s, "garbage");
    char bad[600];
    snprintf(bad, sizeof bad, "%s/c.h5", s.dir);
    FILE *f = fopen(bad, "w");
    cr_assert_not_null(f);
    fputs("this is not HDF5\n", f);
    fclose(f);
    iohw_run_options o = options(&s, "reference");
    run_ok(&o, &res);
    cr_assert_eq(res.count, NCASES + 1);
    const iohw_result *last = &res.items[NCASES];
    cr_assert_eq(last->status, IOHW_RESULT_INVALID);
    cr_assert_str_eq(last->case_id, "");
    cr_assert_str_eq(last->file, bad);
    cr_assert_not_null(strstr(last->message, "c.h5"), "%s", last->message);
    for (int i = 0; i < NCASES; i++)
        cr_expect_eq(res.items[i].status, IOHW_RESULT_PASS, "%s", res.items[i].case_id);
    cr_assert_eq(iohw_run_exit_code(&res), 1);
    iohw_run_results_free(&res);
    remove_suite(&s);
}

Test(run, a_file_that_crashes_the_hdf5_reader_is_invalid_and_the_rest_still_runs)
{
    /* The listing of each file runs in a child process; a crash there (as a
     * corrupt file can cause inside libhdf5) is injected for b.h5. */
    suite s;
    iohw_run_results res;
    make_suite(&s, "listcrash");
    char hook[700];
    snprintf(hook, sizeof hook, "crash:read:%s", s.b);
    setenv("IOHW_TEST_HOOK", hook, 1);
    iohw_run_options o = options(&s, "reference");
    run_ok(&o, &res);
    unsetenv("IOHW_TEST_HOOK");
    int pass = 0, invalid = 0;
    for (int64_t i = 0; i < res.count; i++) {
        const iohw_result *x = &res.items[i];
        if (x->status == IOHW_RESULT_PASS) {
            pass++;
            cr_expect_eq(x->case_id[0], 'a', "%s", x->case_id);
        } else {
            cr_expect_eq(x->status, IOHW_RESULT_INVALID);
            cr_expect_str_eq(x->file, s.b);
            cr_expect_not_null(strstr(x->message, "crashed the HDF5 library"), "%s",
                               x->message);
            invalid++;
        }
    }
    cr_expect_eq(pass, 6, "every case of a.h5 still runs and passes");
    cr_expect_eq(invalid, 1, "b.h5 is one INVALID entry");
    cr_expect_eq(iohw_run_exit_code(&res), 1);
    iohw_run_results_free(&res);
    remove_suite(&s);
}

/* Deletes a link (dataset or attribute) of case id in path. */
static void damage_case(const char *path, const char *id, const char *dataset,
                        const char *attribute)
{
    char group[256];
    snprintf(group, sizeof group, "/cases/%s", id);
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    cr_assert_geq(f, 0);
    hid_t g = H5Gopen2(f, group, H5P_DEFAULT);
    cr_assert_geq(g, 0);
    if (dataset != NULL)
        cr_assert_geq(H5Ldelete(g, dataset, H5P_DEFAULT), 0);
    if (attribute != NULL)
        cr_assert_geq(H5Adelete(g, attribute), 0);
    H5Gclose(g);
    H5Fclose(f);
}

Test(run, a_reader_crash_inside_a_dataset_is_invalid_naming_file_case_and_dataset)
{
    /* libhdf5 segfaults in H5Dread on some corrupt datasets; injected here
     * for every case's y_f64.  The verifier dies, never the backend's
     * worker: each case is INVALID, and a fresh verifier takes the next. */
    suite s;
    iohw_run_results res;
    make_suite(&s, "readcrash");
    iohw_run_options o = options(&s, "reference");
    o.memory_limit_mb = 4096;
    setenv("IOHW_TEST_HOOK", "crash:verifier:y_f64", 1);
    run_ok(&o, &res);
    unsetenv("IOHW_TEST_HOOK");
    expect_statuses(&res, pick_all, IOHW_RESULT_INVALID, "dataset 'y_f64'");
    for (int64_t i = 0; i < res.count; i++) {
        const iohw_result *r = &res.items[i];
        cr_expect_not_null(strstr(r->message, r->case_id), "%s", r->message);
        cr_expect_not_null(strstr(r->message, r->file), "%s", r->message);
        /* "(killed by signal SIGSEGV ...)"; under ASan, whose handler
         * catches the fault, "(exited with status 1)". */
        cr_expect_not_null(strstr(r->message, "killed the reader ("), "%s", r->message);
        cr_expect_null(strstr(r->message, "memory"), "%s", r->message);
    }
    iohw_run_results_free(&res);
    remove_suite(&s);
}

/* A fault injected into the verifier while it works on case a.r1: the
 * case gets status want, its message holds both needles. */
typedef struct verifier_fault {   /* copied into the test's process: no pointers */
    char name[24];
    char hook[32];
    int timeout;                  /* 0: the default */
    iohw_result_status want;
    char needle[2][48];
} verifier_fault;

static verifier_fault verifier_faults[] = {
    /* A reader hang inside a dataset is invalid after the timeout. */
    {"readhang", "hang:verifier:x", 1, IOHW_RESULT_INVALID,
     {"reading dataset 'x' of case 'a.r1' in", "did not finish within 1 s"}},
    /* A verifier crash while comparing is a harness error, not a crash. */
    {"comparecrash", "crash:verifier:compare", 0, IOHW_RESULT_ERROR,
     {"harness: the verifier process", "not of the backend"}},
};

ParameterizedTestParameters(run, a_verifier_fault_is_named_on_its_case)
{
    return cr_make_param_array(verifier_fault, verifier_faults,
                               sizeof verifier_faults / sizeof verifier_faults[0]);
}

ParameterizedTest(verifier_fault *v, run, a_verifier_fault_is_named_on_its_case)
{
    suite s;
    iohw_run_results res;
    make_suite(&s, v->name);
    iohw_run_options o = options(&s, "reference");
    o.filter = "id=a.r1";
    if (v->timeout > 0)
        o.timeout = v->timeout;
    setenv("IOHW_TEST_HOOK", v->hook, 1);
    run_ok(&o, &res);
    unsetenv("IOHW_TEST_HOOK");
    cr_assert_eq(res.count, 1);
    cr_assert_eq(res.items[0].status, v->want, "%s", res.items[0].message);
    for (int k = 0; k < 2; k++)
        cr_assert_not_null(strstr(res.items[0].message, v->needle[k]), "%s",
                           res.items[0].message);
    iohw_run_results_free(&res);
    remove_suite(&s);
}

Test(run, a_damaged_case_is_invalid_and_its_neighbours_still_pass)
{
    suite s;
    iohw_run_results res;
    make_suite(&s, "damaged");
    damage_case(s.a, "a.r1", "y_f64", NULL);   /* found when the worker loads it */
    damage_case(s.b, "b.cl", NULL, "rank");    /* found while listing */
    iohw_run_options o = options(&s, "reference");
    run_ok(&o, &res);
    cr_assert_eq(res.count, NCASES);
    for (int64_t i = 0; i < res.count; i++) {
        const iohw_result *r = &res.items[i];
        int broken = strcmp(r->case_id, "a.r1") == 0 || strcmp(r->case_id, "b.cl") == 0;
        cr_expect_eq(r->status, broken ? IOHW_RESULT_INVALID : IOHW_RESULT_PASS, "%s: %s",
                     r->case_id, r->message);
        if (broken)
            cr_expect_neq(r->message[0], '\0', "%s has no reason", r->case_id);
    }
    iohw_run_results_free(&res);
    remove_suite(&s);
}

/* --- journal and resume ------------------------------------------------ */

static int64_t count_lines(const char *path)
{
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f);
    int64_t n = 0;
    int ch;
    while ((ch = fgetc(f)) != EOF)
        n += ch == '\n';
    fclose(f);
    return n;
}

Test(run, resuming_runs_only_what_the_journal_lacks)
{
    suite s;
    iohw_run_results half, all;
    make_suite(&s, "resume");
    char journal[600];
    snprintf(journal, sizeof journal, "%s/run.jsonl", s.dir);
    iohw_run_options o = options(&s, "fault_crash");
    o.journal = journal;
    o.filter = "id=a.*";
    run_ok(&o, &half);
    cr_assert_eq(half.count, 6);
    cr_assert_eq(count_lines(journal), 6);

    /* A line cut short by a killed run: ignored, its case runs again. */
    FILE *f = fopen(journal, "a");
    cr_assert_not_null(f);
    fprintf(f, "{\"id\":\"b.dw\",\"file\":\"%s\",\"status\":\"PA", s.b);
    fclose(f);

    o.filter = NULL;
    o.resume = 1;
    run_ok(&o, &all);
    cr_assert_eq(all.count, NCASES);
    cr_assert_eq(all.resumed, 6);
    expect_statuses(&all, pick_grouped, IOHW_RESULT_CRASH, "SIGSEGV");
    for (int i = 0; i < 6; i++)
        cr_assert_eq(all.wall[i], 0.0, "%s was run again", all.items[i].case_id);
    /* 6 + the cut line + 6 new ones: every case exactly once. */
    cr_assert_eq(count_lines(journal), 13);
    iohw_run_results_free(&half);
    iohw_run_results_free(&all);
    remove_suite(&s);
}

Test(run, resumed_results_are_kept_as_the_journal_says)
{
    suite s;
    iohw_run_results res;
    make_suite(&s, "keep");
    char journal[600];
    snprintf(journal, sizeof journal, "%s/run.jsonl", s.dir);
    /* A hand-written FAIL for a.r1: the reference would pass it, so a FAIL
     * in the results proves it was not run again. */
    FILE *f = fopen(journal, "w");
    cr_assert_not_null(f);
    fprintf(f, "{\"id\":\"a.r1\",\"file\":\"%s\",\"status\":\"FAIL\",\"message\":\"from "
               "the journal\",\"mismatches\":4}\n", s.a);
    fclose(f);
    iohw_run_options o = options(&s, "reference");
    o.journal = journal;
    o.resume = 1;
    run_ok(&o, &res);
    const iohw_result *r = find(&res, "a.r1");
    cr_assert_eq(r->status, IOHW_RESULT_FAIL);
    cr_assert_str_eq(r->message, "from the journal");
    cr_assert_eq(r->mismatches, 4);
    cr_assert_eq(res.resumed, 1);
    cr_assert_eq(iohw_run_exit_code(&res), 1);
    cr_assert_eq(count_lines(journal), NCASES);
    iohw_run_results_free(&res);
    remove_suite(&s);
}

Test(run, a_killed_run_resumes_where_its_journal_stops)
{
    suite s;
    iohw_run_results res;
    char journal[600], hang[512];
    make_suite(&s, "killed");
    snprintf(journal, sizeof journal, "%s/run.jsonl", s.dir);
    backend_path(hang, sizeof hang, "fault_hang");
    /* One worker, file order: a.bf and a.g2 pass, then a.op hangs. */
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        freopen("/dev/null", "w", stdout);
        freopen("/dev/null", "w", stderr);
        execl(IOHW_BIN, IOHW_BIN, "run", "--backend", hang, s.dir, "--jobs", "1",
              "--timeout", "300", "--journal", journal, "--quiet", (char *)NULL);
        _exit(127);
    }
    int64_t lines = 0;
    for (int i = 0; i < 15000 && lines < 2; i++) { /* up to 300 s */
        usleep(20000);
        FILE *f = fopen(journal, "r");
        if (f != NULL) {
            fclose(f);
            lines = count_lines(journal);
        }
    }
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    cr_assert_eq(lines, 2, "the killed run journaled %lld results", (long long)lines);

    iohw_run_options o = options(&s, "reference");
    o.journal = journal;
    o.resume = 1;
    run_ok(&o, &res);
    cr_assert_eq(res.count, NCASES);
    cr_assert_eq(res.resumed, 2);
    cr_assert_eq(res.wall[0], 0.0);   /* a.bf, from the journal */
    cr_assert_eq(res.wall[1], 0.0);   /* a.g2, from the journal */
    cr_assert_gt(res.wall[2], 0.0);   /* a.op, run now */
    expect_statuses(&res, pick_all, IOHW_RESULT_PASS, NULL);
    cr_assert_eq(count_lines(journal), NCASES);
    iohw_run_results_free(&res);
    remove_suite(&s);
}

Test(run, a_memory_limit_too_low_for_the_worker_is_named_in_the_crash)
{
    suite s;
    iohw_run_results res;
    if (!iohw_run_memory_limit_works())
        cr_skip_test("RLIMIT_AS is not set under AddressSanitizer");
    make_suite(&s, "memlimit");
    iohw_run_options o = options(&s, "reference");
    o.filter = "id=a.r1";
    o.memory_limit_mb = 4096;
    run_ok(&o, &res);
    cr_assert_eq(res.items[0].status, IOHW_RESULT_PASS, "%s", res.items[0].message);
    iohw_run_results_free(&res);
    /* 1 MB: less than the worker already maps, so loading the case fails. */
    o.memory_limit_mb = 1;
    run_ok(&o, &res);
    cr_assert_neq(res.items[0].status, IOHW_RESULT_PASS);
    cr_assert_not_null(strstr(res.items[0].message, "memory limit"), "%s",
                       res.items[0].message);
    iohw_run_results_free(&res);
    remove_suite(&s);
}

/* --- errors that stop the run -------------------------------------------- */

Test(run, a_backend_that_cannot_be_loaded_stops_the_run_with_the_loaders_message)
{
    suite s;
    iohw_run_results res;
    make_suite(&s, "noload");
    iohw_run_options o = options(&s, "broken_no_entry");
    iohw_error err = {{0}};
    cr_assert_eq(iohw_run(&o, &res, &err), -1);
    cr_assert_not_null(strstr(err.msg, "libiohw_broken_no_entry.so"), "%s", err.msg);
    cr_assert_eq(res.count, 0);
    remove_suite(&s);
}

Test(run, resume_without_a_journal_is_refused)
{
    suite s;
    iohw_run_results res;
    make_suite(&s, "nojournal");
    iohw_run_options o = options(&s, "reference");
    o.resume = 1;
    iohw_error err = {{0}};
    cr_assert_eq(iohw_run(&o, &res, &err), -1);
    cr_assert_not_null(strstr(err.msg, "journal"), "%s", err.msg);
    remove_suite(&s);
}

/* --- the command ------------------------------------------------------- */

static int command(const char *args)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "%s run %s >/dev/null 2>&1", IOHW_BIN, args);
    int st = system(cmd);
    cr_assert(WIFEXITED(st), "%s did not exit", cmd);
    return WEXITSTATUS(st);
}

/* One invocation of the command and the exit code it must give: 0 when
 * every selected case passes, 1 when some do not, 2 when the run cannot
 * start.  In args, '@' stands for the suite's directory. */
typedef struct exit_case {   /* copied into the test's process: no pointers */
    char name[40];           /* the scenario, named in a failure */
    char backend[16];        /* --backend libiohw_<backend>.so; "": none */
    char args[40];
    int code;
} exit_case;

static exit_case exit_cases[] = {
    {"all pass", "reference", "@ --quiet", 0},
    {"some crash", "fault_crash", "@ --quiet", 1},
    {"the crashing cases filtered out", "fault_crash", "@ --filter 'g=1' --quiet", 0},
    {"backend missing", "", "--backend @/nonexistent.so @", 2},
    {"input missing", "reference", "@/nonexistent", 2},
    {"bad filter", "reference", "@ --filter 'zz>1'", 2},
    {"bad shard", "reference", "@ --shard 4/3", 2},
    {"unknown option", "reference", "@ --bogus", 2},
    {"no backend", "", "@", 2},
    {"list", "", "--list @", 0},
};

/* Writes c's arguments to buf: the backend option, then c->args with every
 * '@' replaced by dir. */
static void exit_case_args(const exit_case *c, const char *dir, char *buf, size_t n)
{
    size_t len = 0;
    if (c->backend[0] != '\0') {
        char lib[512];
        backend_path(lib, sizeof lib, c->backend);
        len = (size_t)snprintf(buf, n, "--backend %s ", lib);
    }
    const char *a = c->args;
    for (; *a != '\0' && len + 1 < n; a++) {
        if (*a == '@')
            len += (size_t)snprintf(buf + len, n - len, "%s", dir);
        else
            buf[len++] = *a;
    }
    cr_assert(*a == '\0' && len < n, "%s: the arguments do not fit", c->name);
    buf[len] = '\0';
}

ParameterizedTestParameters(run, the_command_exits_0_1_or_2)
{
    return cr_make_param_array(exit_case, exit_cases, sizeof exit_cases / sizeof exit_cases[0]);
}

ParameterizedTest(exit_case *c, run, the_command_exits_0_1_or_2)
{
    suite s;
    char args[1500];
    make_suite(&s, "exit");
    exit_case_args(c, s.dir, args, sizeof args);
    int code = command(args);
    cr_expect_eq(code, c->code, "%s: iohw run %s exited with %d, want %d", c->name, args, code,
                 c->code);
    remove_suite(&s);
}

Test(run, a_failure_block_carries_the_repro_command)
{
    suite s;
    char cmd[2048], crash[512];
    make_suite(&s, "block");
    backend_path(crash, sizeof crash, "fault_crash");
    snprintf(cmd, sizeof cmd, "%s run --backend %s %s --filter 'id=a.g2' --quiet 2>/dev/null",
             IOHW_BIN, crash, s.dir);
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p);
    char *text = NULL;
    size_t cap = 0, len = 0;
    char chunk[4096];
    size_t k;
    while ((k = fread(chunk, 1, sizeof chunk, p)) > 0) {
        text = realloc(text, cap = len + k + 1);
        memcpy(text + len, chunk, k);
        len += k;
        text[len] = '\0';
    }
    cr_assert_eq(WEXITSTATUS(pclose(p)), 1);
    cr_assert_not_null(text);
    char want[2048];
    snprintf(want, sizeof want, "__REPRO: iohw run --backend %s %s --filter 'id=a.g2'\n",
             crash, s.a);
    cr_assert_not_null(strstr(text, want), "%s", text);
    cr_assert_not_null(strstr(text, "CRASH a.g2"), "%s", text);
    cr_assert_not_null(strstr(text, "killed by signal SIGSEGV"), "%s", text);
    (void)cap;
    free(text);
    remove_suite(&s);
}
