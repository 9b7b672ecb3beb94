/*
 * tests/test_bwd_faults.c - the backward seeded faults through `iohw run`
 * (specification sections 3.5 and 13): on a handful of backward cases
 * written here (inputs of small integers, outputs from the oracle of their
 * direction, iohw_oracle_run_inputs) each fault of backends/faults/bwd_*.c
 * FAILs at least one, and every failure is named by its backward
 * diagnosis (judge/diagnose_bwd.c).
 *
 * The verdicts and diagnoses are read from `iohw run --json`.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cases/case.h"
#include "oracle/descriptor.h"
#include "oracle/dtype.h"
#include "oracle/oracle.h"
#include "oracle/problem.h"
#include "reports/reports.h"
#include "support/shell.h"

typedef struct bwd_fault {
    const char *name;      /* libiohw_<name>.so */
    const char *diagnosis; /* what its diagnosis says (dw written / w read
                              with I and O exchanged: their common part) */
} bwd_fault;

static const bwd_fault FAULTS[] = {
    {"fault_bwd_io_swap", "I and O exchanged (as OIHW)"},
    {"fault_bwd_no_flip", "gradient kernel not flipped (taps reversed)"},
    {"fault_bwd_op_ignored", "dy read without its output_padding (rows shifted)"},
    {"fault_bwd_stride_phase", "dy read one position off the stride phase"},
    {"fault_bwd_group_interleave", "channels of the groups interleaved in the gradient"},
    {"fault_bwd_db_per_group", "db summed per group into the first group's channels"},
    {"fault_bwd_db_no_spatial", "db without the spatial sum (first position only)"},
    {"fault_bwd_db_wrong_axis", "db summed along the wrong axis of dy's memory"},
    {"fault_bwd_batch_n0", "batch not summed (dw and db from n = 0 only)"},
};
#define NFAULTS (sizeof FAULTS / sizeof FAULTS[0])

/* Two groups, C_in != C_out/G, stride 2 and output_padding 1 on one axis,
 * two images, a bias for BWD_WB, other layouts and dtypes. */
typedef struct problem {
    const char *desc;  /* without the direction */
    int32_t dir;
} problem;

static const problem PROBLEMS[] = {
    {"n=2 ci=4 co=6 g=2 in=5x4 k=3x2 s=2x1 pad=1:0x0:1 op=1x0 dt=f32 fill=exact seed=3",
     IOHW_DIR_BWD_D},
    {"n=2 ci=4 co=6 g=2 in=5x4 k=3x2 s=2x1 pad=1:0x0:1 op=1x0 dt=f32 fill=exact seed=4 bias=1",
     IOHW_DIR_BWD_W},
    {"n=2 ci=3 co=4 in=7 k=3 s=2 pad=1 op=1 dt=f64 fill=exact seed=5 bias=1", IOHW_DIR_BWD_W},
    {"n=2 ci=4 co=4 g=2 in=6 k=4 s=3 pad=2 op=2 dt=f32 fill=exact xl=NWC seed=6",
     IOHW_DIR_BWD_D},
    {"n=2 ci=4 co=6 g=2 in=3x4 k=2x3 s=2 op=1 dt=f32 fill=exact xl=NHWC wl=GOIHW seed=8 bias=1",
     IOHW_DIR_BWD_W},
};
#define NPROBLEMS (sizeof PROBLEMS / sizeof PROBLEMS[0])

/* Small integers (exact sums) from a fixed sequence. */
static void *ints(iohw_dtype dt, int64_t n, unsigned seed)
{
    void *v = malloc((size_t)n * iohw_dtype_size(dt));
    cr_assert_not_null(v);
    for (int64_t i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        iohw_dtype_store(dt, v, (size_t)i, (double)((int)((seed >> 16) % 9) - 4));
    }
    return v;
}

/* Case i of PROBLEMS, its outputs from the oracle of its direction. */
static void make(size_t i, iohw_case *c)
{
    iohw_desc d;
    iohw_error err = {{0}};
    iohw_oracle_result r;
    cr_assert_eq(iohw_desc_parse(PROBLEMS[i].desc, &d, &err), 0, "%s", err.msg);
    memset(c, 0, sizeof *c);
    c->p = d.p;
    c->p.direction = PROBLEMS[i].dir;
    cr_assert_eq(iohw_problem_validate(&c->p, &err), 0, "%s", err.msg);
    snprintf(c->id, sizeof c->id, "ct%ud.%s.%s.%04zu", (unsigned)c->p.rank,
             c->p.direction == IOHW_DIR_BWD_D ? "bwd_d" : "bwd_w",
             iohw_dtype_name(c->p.dtype), i);
    snprintf(c->fill, sizeof c->fill, "%s", d.fill);
    c->seed = d.seed;
    c->tags = strdup(c->p.direction == IOHW_DIR_BWD_D ? "dir-bwd_d" : "dir-bwd_w");
    char text[600];
    snprintf(text, sizeof text, "%s dir=%s", PROBLEMS[i].desc,
             c->p.direction == IOHW_DIR_BWD_D ? "bwd_d" : "bwd_w");
    c->descriptor = strdup(text);
    c->dy = ints(c->p.dtype, iohw_problem_dy_count(&c->p), (unsigned)(3 * i + 1));
    if (c->p.direction == IOHW_DIR_BWD_D)
        c->w = ints(c->p.dtype, iohw_problem_w_count(&c->p), (unsigned)(3 * i + 2));
    else
        c->x = ints(c->p.dtype, iohw_problem_x_count(&c->p), (unsigned)(3 * i + 2));
    const iohw_oracle_inputs in = {.x = c->x, .w = c->w, .dy = c->dy};
    cr_assert_eq(iohw_oracle_run_inputs(&c->p, &in, IOHW_ORACLE_DEFINITION, 1, &r, &err), 0,
                 "%s", err.msg);
    c->y = r.y;
    c->y_f64 = r.y_f64;
    c->err_bound = r.err_bound;
    c->terms_max = r.terms_max;
}

/* dir/bwd.h5: the backward cases of PROBLEMS. */
static void generate(const char *dir, char *path, size_t n)
{
    iohw_error err = {{0}};
    iohw_test_sh(NULL, "rm -rf '%s' && mkdir -p '%s'", dir, dir);
    snprintf(path, n, "%s/bwd.h5", dir);
    iohw_case_file *f = iohw_case_file_create(path, &err);
    cr_assert_not_null(f, "%s", err.msg);
    for (size_t i = 0; i < NPROBLEMS; i++) {
        iohw_case c;
        make(i, &c);
        cr_assert_eq(iohw_case_file_write(f, &c, &err), 0, "%s: %s", c.id, err.msg);
        iohw_case_free(&c);
    }
    cr_assert_eq(iohw_case_file_close(f, &err), 0, "%s", err.msg);
}

static void run_fault(const char *dir, const char *file, const char *name, iohw_report *rep)
{
    char json[700];
    iohw_error err = {0};
    snprintf(json, sizeof json, "%s/%s.json", dir, name);
    const int rc = iohw_test_sh(NULL, "'%s' run --backend '%s/libiohw_%s.so' '%s' --jobs 2 "
                                "--quiet --json '%s' > /dev/null 2>&1",
                                IOHW_BIN, IOHW_BACKEND_DIR, name, file, json);
    cr_assert(rc == 0 || rc == 1, "%s: exit %d", name, rc);
    cr_assert_eq(iohw_report_read(json, rep, &err), 0, "%s: %s", json, err.msg);
}

Test(bwd_faults, each_fails_generated_backward_cases_named_by_its_diagnosis, .timeout = 300)
{
    char dir[512], file[600];
    snprintf(dir, sizeof dir, "%s/bwd-faults-%d", IOHW_TEST_TMP, (int)getpid());
    generate(dir, file, sizeof file);
    for (size_t f = 0; f < NFAULTS; f++) {
        iohw_report rep;
        int fails = 0, named = 0;
        run_fault(dir, file, FAULTS[f].name, &rep);
        cr_expect_eq(rep.results.count, (int64_t)NPROBLEMS, "%s", FAULTS[f].name);
        for (int64_t i = 0; i < rep.results.count; i++) {
            const iohw_result *r = &rep.results.items[i];
            if (r->status != IOHW_RESULT_FAIL)
                continue;
            fails++;
            const int ok = strstr(r->diagnosis, FAULTS[f].diagnosis) != NULL;
            named += ok;
            cr_expect(ok, "%s on %s: diagnosis \"%s\"", FAULTS[f].name, r->case_id,
                      r->diagnosis);
        }
        printf("%s: %d of %zu backward cases FAIL, %d named \"%s\"\n", FAULTS[f].name, fails,
               NPROBLEMS, named, FAULTS[f].diagnosis);
        cr_expect_geq(fails, 1, "%s fails no backward case", FAULTS[f].name);
        iohw_report_free(&rep);
    }
    fflush(stdout);
    iohw_test_sh(NULL, "rm -rf '%s'", dir);
}
