/*
 * tests/test_bwd_faults.c - the backward seeded faults through `iohw run`
 * (specification sections 3.5 and 13): on a handful of generated backward
 * cases (`iohw gen --problem ... dir=...`) each fault of
 * backends/faults/bwd_*.c FAILs, and every failure is named by its
 * backward diagnosis (judge/diagnose_bwd.c); a correct forward run() is
 * left alone: the forward case passes.
 *
 * The verdicts and diagnoses are read from `iohw run --json`.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
 * two images, a bias for BWD_WB; one forward case. */
static const char *const PROBLEMS[] = {
    "n=2 ci=4 co=6 g=2 in=5x4 k=3x2 s=2x1 pad=1:0x0:1 op=1x0 dt=f32 fill=exact seed=3 dir=bwd_d",
    "n=2 ci=4 co=6 g=2 in=5x4 k=3x2 s=2x1 pad=1:0x0:1 op=1x0 dt=f32 fill=exact seed=4 "
    "bias=1 dir=bwd_w",
    "n=2 ci=3 co=4 in=7 k=3 s=2 pad=1 op=1 dt=f64 seed=5 bias=1 dir=bwd_w",
    "n=2 ci=4 co=4 g=2 in=6 k=4 s=3 pad=2 op=2 dt=f32 xl=NWC seed=6 dir=bwd_d",
    "n=2 ci=4 co=6 g=2 in=5x4 k=3x2 s=2x1 pad=1:0x0:1 op=1x0 dt=f32 seed=7 bias=1",
};
#define NPROBLEMS (sizeof PROBLEMS / sizeof PROBLEMS[0])

static void generate(const char *dir)
{
    char cmd[4096];
    size_t len = (size_t)snprintf(cmd, sizeof cmd, "rm -rf '%s' && '%s' gen -o '%s'", dir,
                                  IOHW_BIN, dir);
    for (size_t i = 0; i < NPROBLEMS; i++)
        len += (size_t)snprintf(cmd + len, sizeof cmd - len, " --problem '%s'", PROBLEMS[i]);
    cr_assert_lt(len, sizeof cmd);
    char *out = NULL;
    const int rc = iohw_test_sh(&out, "%s", cmd);
    cr_assert_eq(rc, 0, "%s\n%s", cmd, out != NULL ? out : "");
    free(out);
}

static void run_fault(const char *dir, const char *name, iohw_report *rep)
{
    char json[700];
    iohw_error err = {0};
    snprintf(json, sizeof json, "%s/%s.json", dir, name);
    const int rc = iohw_test_sh(NULL, "'%s' run --backend '%s/libiohw_%s.so' '%s' --jobs 2 "
                                "--quiet --json '%s' > /dev/null 2>&1",
                                IOHW_BIN, IOHW_BACKEND_DIR, name, dir, json);
    cr_assert(rc == 0 || rc == 1, "%s: exit %d", name, rc);
    cr_assert_eq(iohw_report_read(json, rep, &err), 0, "%s: %s", json, err.msg);
}

Test(bwd_faults, each_fails_generated_backward_cases_named_by_its_diagnosis, .timeout = 300)
{
    char dir[512];
    snprintf(dir, sizeof dir, "%s/bwd-faults-%d", IOHW_TEST_TMP, (int)getpid());
    generate(dir);
    for (size_t f = 0; f < NFAULTS; f++) {
        iohw_report rep;
        int fails = 0, named = 0;
        run_fault(dir, FAULTS[f].name, &rep);
        cr_expect_eq(rep.results.count, (int64_t)NPROBLEMS, "%s", FAULTS[f].name);
        for (int64_t i = 0; i < rep.results.count; i++) {
            const iohw_result *r = &rep.results.items[i];
            if (r->direction[0] == '\0')
                cr_expect_eq(r->status, IOHW_RESULT_PASS, "%s: the forward case %s",
                             FAULTS[f].name, r->case_id);
            if (r->status != IOHW_RESULT_FAIL)
                continue;
            fails++;
            const int ok = strstr(r->diagnosis, FAULTS[f].diagnosis) != NULL;
            named += ok;
            cr_expect(ok, "%s on %s: diagnosis \"%s\"", FAULTS[f].name, r->case_id,
                      r->diagnosis);
        }
        printf("%s: %d of %zu generated cases FAIL, %d named \"%s\"\n", FAULTS[f].name, fails,
               NPROBLEMS, named, FAULTS[f].diagnosis);
        cr_expect_geq(fails, 1, "%s fails no generated backward case", FAULTS[f].name);
        iohw_report_free(&rep);
    }
    fflush(stdout);
    iohw_test_sh(NULL, "rm -rf '%s'", dir);
}
