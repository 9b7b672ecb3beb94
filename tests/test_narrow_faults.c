/*
 * tests/test_narrow_faults.c - the smoke profile corners the narrow bugs:
 * each seeded fault of one special value, one conversion or one blocked
 * loop's tail (backends/faults/) fails at least three smoke cases carrying
 * its class's tag, and, where the fault acts on several dtypes, at least
 * three cases of each; the reference backend passes every case.  Detection
 * that rests on one case is luck: the next suite revision could lose it.
 *
 * The verdicts are read from `iohw run --json`, counted by status, tag and
 * the dtype of the case id.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "judge/compare.h"
#include "reports/reports.h"
#include "support/tags.h"
#include "support/shell.h"

#define MIN_CASES 3

typedef struct narrow_fault {
    const char *name;     /* libiohw_<name>.so */
    const char *tag;      /* the class's tag */
    const char *dtypes;   /* dtypes that must each fail MIN_CASES cases */
} narrow_fault;

static const narrow_fault FAULTS[] = {
    {"fault_zero_skip", "bug-zero-skip", ""},
    {"fault_zero_skip_w", "bug-zero-skip", ""},
    {"fault_ftz_daz", "bug-subnormal-flush", "f32 f64 f16 bf16"},
    {"fault_bf16_truncate", "bug-rounding", "bf16"},
    {"fault_round_half_away", "bug-rounding", "f16 bf16"},
    {"fault_saturate", "bug-overflow", "f32 f16 bf16"},
    {"fault_bf16_weights", "bug-fast-math-weights", "f32"},
    {"fault_tail_channels", "bug-blocked-tail", ""},
    {"fault_tail_width", "bug-blocked-tail", ""},
};
#define NFAULTS (sizeof FAULTS / sizeof FAULTS[0])

/* The dtype field of an id ct<R>d.<category>.<dtype>.<counter>. */
static int id_has_dtype(const char *id, const char *dt)
{
    const char *a = strchr(id, '.');
    const char *b = a != NULL ? strchr(a + 1, '.') : NULL;
    const size_t n = strlen(dt);
    return b != NULL && strncmp(b + 1, dt, n) == 0 && b[1 + n] == '.';
}

/* Runs the smoke suite in dir against lib<name>.so; reads the report. */
static void run_smoke(const char *dir, const char *name, iohw_report *rep)
{
    char cmd[4096], json[700];
    iohw_error err = {0};
    snprintf(json, sizeof json, "%s/%s.json", dir, name);
    snprintf(cmd, sizeof cmd, "'%s' run --backend '%s/libiohw_%s.so' '%s' --jobs 2 --quiet "
             "--no-diagnose --json '%s' > /dev/null 2>&1", IOHW_BIN, IOHW_BACKEND_DIR, name,
             dir, json);
    const int rc = iohw_test_sh(NULL, "%s", cmd);
    cr_assert(rc == 0 || rc == 1, "%s: exit %d", cmd, rc);
    cr_assert_eq(iohw_report_read(json, rep, &err), 0, "%s: %s", json, err.msg);
}

/* FAILs of the report with the tag (NULL: any) and dtype (NULL: any). */
static int count_fails(const iohw_report *rep, const char *tag, const char *dt)
{
    int n = 0;
    for (int64_t i = 0; i < rep->results.count; i++) {
        const iohw_result *r = &rep->results.items[i];
        n += r->status == IOHW_RESULT_FAIL && (tag == NULL || iohw_test_has_tag(r->tags, tag)) &&
             (dt == NULL || id_has_dtype(r->case_id, dt));
    }
    return n;
}

static void check_fault(const char *dir, const narrow_fault *f)
{
    iohw_report rep;
    char dt[8];

    run_smoke(dir, f->name, &rep);
    const int tagged = count_fails(&rep, f->tag, NULL);
    printf("%s: %d smoke cases FAIL, %d of them tagged %s\n", f->name,
           count_fails(&rep, NULL, NULL), tagged, f->tag);
    cr_expect_geq(tagged, MIN_CASES, "%s fails %d smoke cases tagged %s", f->name, tagged,
                  f->tag);
    for (const char *s = f->dtypes; *s != '\0';) {
        const size_t n = strcspn(s, " ");
        snprintf(dt, sizeof dt, "%.*s", (int)n, s);
        s += n + (s[n] == ' ');
        const int k = count_fails(&rep, NULL, dt);
        cr_expect_geq(k, MIN_CASES, "%s fails %d smoke cases in %s", f->name, k, dt);
    }
    iohw_report_free(&rep);
}

Test(narrow_faults, each_fails_three_smoke_cases_of_its_class_and_the_reference_none,
     .timeout = 580)
{
    char dir[512], cmd[2048];
    iohw_report rep;

    snprintf(dir, sizeof dir, "%s/narrow-%d", IOHW_TEST_TMP, (int)getpid());
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && '%s' gen --profile smoke -o '%s' > /dev/null",
             dir, IOHW_BIN, dir);
    cr_assert_eq(iohw_test_sh(NULL, "%s", cmd), 0, "%s", cmd);

    run_smoke(dir, "reference", &rep);
    cr_expect_gt(rep.results.count, 0);
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

Test(narrow_faults, the_ties_fill_is_judged_bit_for_bit)
{
    iohw_case c;
    memset(&c, 0, sizeof c);
    strcpy(c.fill, "ties");
    cr_expect(iohw_compare_is_exact(&c));
    strcpy(c.fill, "huge");
    cr_expect_not(iohw_compare_is_exact(&c));
}
