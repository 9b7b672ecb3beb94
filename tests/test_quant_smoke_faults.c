/*
 * tests/test_quant_smoke_faults.c - the smoke profile corners the
 * quantized bugs: each quantized seeded fault (backends/faults/quant_*.c)
 * fails at least three smoke cases carrying its bug's tag, and at least
 * three of its failures are named by its quantized diagnosis
 * (judge/diagnose_quant.c).  Detection that rests on one case is luck.
 *
 * The verdicts and diagnoses are read from `iohw run --json`.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "reports/reports.h"
#include "support/tags.h"
#include "support/shell.h"

#define MIN_CASES 3

typedef struct quant_fault {
    const char *name;      /* libiohw_<name>.so */
    const char *tag;       /* the bug's tag */
    const char *diagnosis; /* a name its diagnosis gives */
} quant_fault;

static const quant_fault FAULTS[] = {
    {"fault_quant_zp_x", "bug-quant-zero-point", "x's zero point not subtracted"},
    {"fault_quant_zp_w", "bug-quant-zero-point", "w's zero point not subtracted"},
    {"fault_quant_rounding", "bug-quant-rounding", " was asked"},
    {"fault_quant_axis_i", "bug-quant-axis", "per-channel scales applied along I"},
    {"fault_quant_no_saturation", "bug-quant-saturation", "no saturation (wrapped around)"},
    {"fault_quant_io_swap", "bug-quant-io-swap", "quantized weight read with I and O exchanged"},
    {"fault_quant_bias_after", "bug-quant-bias-scale", "bias added after the requantization"},
    {"fault_quant_zp_y_first", "bug-quant-zp-y", "zp_y added before rounding"},
    {"fault_quant_f32_requant", "bug-quant-f32-requant", "requantization computed in binary32"},
    {"fault_quant_acc_wrap", "bug-quant-acc-wrap", "int32 accumulator wrapped"},
    {"fault_quant_shift_left", "bug-quant-shift-left", "fixed-point left shift ignored"},
    {"fault_quant_pad_zero", "bug-quant-pad-zero", "zero insertion padded with 0 instead of zp_x"},
    {"fault_quant_pc_group", "bug-quant-pc-group",
     "per-channel M indexed by the channel within its group"},
    {"fault_quant_narrow_clamp", "bug-quant-narrow-clamp", "narrow clamp"},
    {"fault_quant_sat16", "bug-quant-sat16", "16-bit saturation of pairs of products"},
    {"fault_quant_clamp_first", "bug-quant-clamp-first", "clamp applied before zp_y is added"},
    {"fault_quant_x_sign", "bug-quant-x-sign", "x's bytes read with the other signedness"},
};
#define NFAULTS (sizeof FAULTS / sizeof FAULTS[0])

static void run_smoke(const char *dir, const char *name, iohw_report *rep)
{
    char cmd[4096], json[700];
    iohw_error err = {0};
    snprintf(json, sizeof json, "%s/%s.json", dir, name);
    snprintf(cmd, sizeof cmd, "'%s' run --backend '%s/libiohw_%s.so' '%s' --jobs 2 --quiet "
             "--filter 'tag=qdesign' --json '%s' > /dev/null 2>&1", IOHW_BIN,
             IOHW_BACKEND_DIR, name, dir, json);
    const int rc = iohw_test_sh(NULL, "%s", cmd);
    cr_assert(rc == 0 || rc == 1, "%s: exit %d", cmd, rc);
    cr_assert_eq(iohw_report_read(json, rep, &err), 0, "%s: %s", json, err.msg);
}

static void check_fault(const char *dir, const quant_fault *f)
{
    iohw_report rep;
    int fails = 0, tagged = 0, named = 0;
    run_smoke(dir, f->name, &rep);
    for (int64_t i = 0; i < rep.results.count; i++) {
        const iohw_result *r = &rep.results.items[i];
        if (r->status != IOHW_RESULT_FAIL)
            continue;
        fails++;
        tagged += iohw_test_has_tag(r->tags, f->tag);
        named += strstr(r->diagnosis, f->diagnosis) != NULL;
    }
    printf("%s: %d designed quantized smoke cases FAIL, %d tagged %s, %d named \"%s\"\n", f->name,
           fails, tagged, f->tag, named, f->diagnosis);
    cr_expect_geq(tagged, MIN_CASES, "%s fails %d smoke cases tagged %s", f->name, tagged,
                  f->tag);
    cr_expect_geq(named, MIN_CASES, "%s: %d failures named \"%s\"", f->name, named,
                  f->diagnosis);
    iohw_report_free(&rep);
}

Test(quant_smoke_faults, each_fails_three_tagged_smoke_cases_named_by_its_diagnosis,
     .timeout = 580)
{
    char dir[512], cmd[2048];
    iohw_report rep;

    snprintf(dir, sizeof dir, "%s/quant-smoke-%d", IOHW_TEST_TMP, (int)getpid());
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && '%s' gen --profile smoke -o '%s' > /dev/null",
             dir, IOHW_BIN, dir);
    cr_assert_eq(iohw_test_sh(NULL, "%s", cmd), 0, "%s", cmd);

    run_smoke(dir, "reference", &rep);
    cr_expect_gt(rep.results.count, 0, "the smoke profile has no designed quantized case");
    for (int64_t i = 0; i < rep.results.count; i++)
        cr_expect_eq(rep.results.items[i].status, IOHW_RESULT_PASS, "reference: %s",
                     rep.results.items[i].case_id);
    iohw_report_free(&rep);

    for (size_t i = 0; i < NFAULTS; i++)
        check_fault(dir, &FAULTS[i]);
    fflush(stdout);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    iohw_test_sh(NULL, "%s", cmd);
}
