/*
 * tests/test_quant_smoke_faults.c - the smoke profile corners the
 * quantized bugs, and their diagnoses are honest (specification section
 * 11.5): each quantized seeded fault (backends/faults/quant_*.c, every one
 * of IOHW_QUANT_FAULTS) fails at least three smoke cases carrying its
 * bug's tag; at least 80% of all failures are named by their own fault's
 * diagnosis and none is named wrongly (a diagnosis naming anything else
 * than the fault's own cause).  Per fault it prints the failing cases, the
 * share named and the number named wrongly.  Detection that rests on one
 * case is luck; a wrong name is worse than none.
 *
 * The verdicts and diagnoses are read from `iohw run --json`.  With
 * IOHW_QUANT_NAMED_PROFILE=ci (bench/quant_named_ci.sh) the same counts are
 * printed for another profile, with no assertion on them.
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
#define MIN_NAMED_PERCENT 80

typedef struct quant_fault {
    const char *name;      /* libiohw_<name>.so */
    const char *tag;       /* the bug's tag */
    const char *diagnosis; /* what its diagnosis names: substrings, "|" between
                              alternatives */
} quant_fault;

static const quant_fault FAULTS[] = {
    {"fault_quant_zp_x", "bug-quant-zero-point",
     "x's zero point not subtracted|a zero point of x or w not subtracted"},
    {"fault_quant_zp_w", "bug-quant-zero-point",
     "w's zero point not subtracted|a zero point of x or w not subtracted"},
    {"fault_quant_rounding", "bug-quant-rounding",
     " was asked|rounding inside the fixed-point multiply differs from gemmlowp's"},
    /* the fault also rounds once (half away) where gemmlowp is asked */
    {"fault_quant_axis_i", "bug-quant-axis",
     "per-channel scales applied along I|rounding inside the fixed-point multiply differs"},
    {"fault_quant_no_saturation", "bug-quant-saturation", "no saturation (wrapped around)"},
    {"fault_quant_io_swap", "bug-quant-io-swap", "quantized weight read with I and O exchanged"},
    {"fault_quant_bias_after", "bug-quant-bias-scale", "bias added after the requantization"},
    /* on a gemmlowp case whose multiplier is a binary32 value, a float
     * requantization is gemmlowp's ties rounded half away (section 11.5) */
    {"fault_quant_f32_requant", "bug-quant-f32-requant",
     "requantization computed in binary32|rounding inside the fixed-point multiply differs"},
    {"fault_quant_acc_wrap", "bug-quant-acc-wrap", "int32 accumulator wrapped"},
    {"fault_quant_shift_left", "bug-quant-shift-left", "fixed-point left shift ignored"},
    {"fault_quant_pad_zero", "bug-quant-pad-zero", "zero insertion padded with 0 instead of zp_x"},
    {"fault_quant_pc_group", "bug-quant-pc-group",
     "per-channel M indexed by the channel within its group"},
    {"fault_quant_narrow_clamp", "bug-quant-narrow-clamp", "narrow clamp"},
    {"fault_quant_sat16", "bug-quant-sat16", "16-bit saturation of pairs of products"},
    {"fault_quant_clamp_first", "bug-quant-clamp-first", "clamp applied before zp_y is added"},
    {"fault_quant_x_sign", "bug-quant-x-sign", "x's bytes read with the other signedness"},
    {"fault_quant_zp_y_first", "bug-quant-zp-y",
     "zp_y added before rounding|ties rounded in another mode where"},
    /* gemmlowp's steps show on every gemmlowp case: its ties, and the
     * deployment rows of gemmlowp's form (left shifts, near-ties) */
    {"fault_quant_gemmlowp_nudge", "bug-quant-rounding|bug-quant-shift-left|bug-quant-f32-requant",
     "rounding inside the fixed-point multiply differs from gemmlowp's|"
     "gemmlowp's doubling high multiply without its nudge"},
};
#define NFAULTS (sizeof FAULTS / sizeof FAULTS[0])

/* The quantized faults that smoke's plain run cannot reach, with why. */
static const char *const NOT_HERE[][2] = {
    {"quant_bias_bytes", "channels-last only: fails under --adapt-layout (test_adapt_quant)"},
};

typedef struct counts {
    int fails, tagged, named, wrong;
} counts;

/* 1 when the diagnosis names one of the "|"-separated substrings of want. */
static int names(const char *diagnosis, const char *want)
{
    char alt[256];
    for (const char *s = want; *s != '\0';) {
        const char *bar = strchr(s, '|');
        const size_t len = bar != NULL ? (size_t)(bar - s) : strlen(s);
        snprintf(alt, sizeof alt, "%.*s", (int)len, s);
        if (len > 0 && strstr(diagnosis, alt) != NULL)
            return 1;
        s += len + (bar != NULL);
    }
    return 0;
}

/* 1 when the tags hold one of the "|"-separated tags of want. */
static int names_tag(const char *tags, const char *want)
{
    char alt[128];
    for (const char *s = want; *s != '\0';) {
        const char *bar = strchr(s, '|');
        const size_t len = bar != NULL ? (size_t)(bar - s) : strlen(s);
        snprintf(alt, sizeof alt, "%.*s", (int)len, s);
        if (len > 0 && iohw_test_has_tag(tags, alt))
            return 1;
        s += len + (bar != NULL);
    }
    return 0;
}

static void run_profile(const char *dir, const char *name, iohw_report *rep)
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

static counts count_fault(const char *dir, const quant_fault *f)
{
    iohw_report rep;
    counts k = {0, 0, 0, 0};
    run_profile(dir, f->name, &rep);
    for (int64_t i = 0; i < rep.results.count; i++) {
        const iohw_result *r = &rep.results.items[i];
        if (r->status != IOHW_RESULT_FAIL)
            continue;
        k.fails++;
        k.tagged += names_tag(r->tags, f->tag);
        const int own = names(r->diagnosis, f->diagnosis);
        k.named += own;
        if (!own && r->diagnosis[0] != '\0') {
            k.wrong++;
            printf("  named wrongly: %s: %s\n", r->case_id, r->diagnosis);
        }
    }
    printf("%-28s %4d failing, %4d tagged %-22s %4d named (%3d%%), %d named wrongly\n",
           f->name, k.fails, k.tagged, f->tag, k.named,
           k.fails > 0 ? 100 * k.named / k.fails : 0, k.wrong);
    fflush(stdout);
    iohw_report_free(&rep);
    return k;
}

/* 1 when the fault (quant_<x>) has a row in FAULTS or NOT_HERE. */
static int listed(const char *fault)
{
    char lib[128];
    snprintf(lib, sizeof lib, "fault_%s", fault);
    for (size_t i = 0; i < NFAULTS; i++)
        if (strcmp(FAULTS[i].name, lib) == 0)
            return 1;
    for (size_t i = 0; i < sizeof NOT_HERE / sizeof NOT_HERE[0]; i++)
        if (strcmp(NOT_HERE[i][0], fault) == 0)
            return 1;
    return 0;
}

/* Every name of IOHW_QUANT_FAULTS in backends/faults/CMakeLists.txt has a
 * row; returns how many it lists. */
static int check_listed(void)
{
    char path[1024], word[128];
    snprintf(path, sizeof path, "%s/backends/faults/CMakeLists.txt", IOHW_SOURCE_DIR);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "%s", path);
    int in = 0, n = 0;
    while (fscanf(f, "%127s", word) == 1) {
        if (strcmp(word, "set(IOHW_QUANT_FAULTS") == 0) {
            in = 1;
            continue;
        }
        if (!in)
            continue;
        const size_t len = strlen(word);
        const int last = word[len - 1] == ')';
        word[len - last] = '\0';
        if (word[0] != '\0') {
            n++;
            cr_expect(listed(word), "IOHW_QUANT_FAULTS lists %s: give it a row in FAULTS", word);
        }
        if (last)
            break;
    }
    fclose(f);
    return n;
}

Test(quant_smoke_faults, each_fails_three_tagged_cases_and_the_names_are_honest,
     .timeout = 590)
{
    const char *env = getenv("IOHW_QUANT_NAMED_PROFILE");
    const char *profile = env != NULL && env[0] != '\0' ? env : "smoke";
    const int smoke = strcmp(profile, "smoke") == 0;
    char dir[512], cmd[2048];
    iohw_report rep;
    counts all = {0, 0, 0, 0};

    cr_assert_gt(check_listed(), 0, "no IOHW_QUANT_FAULTS in backends/faults/CMakeLists.txt");
    snprintf(dir, sizeof dir, "%s/quant-%s-%d", IOHW_TEST_TMP, profile, (int)getpid());
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && '%s' gen --profile '%s' -o '%s' > /dev/null",
             dir, IOHW_BIN, profile, dir);
    cr_assert_eq(iohw_test_sh(NULL, "%s", cmd), 0, "%s", cmd);

    run_profile(dir, "reference", &rep);
    cr_expect_gt(rep.results.count, 0, "the %s profile has no designed quantized case", profile);
    for (int64_t i = 0; i < rep.results.count; i++)
        cr_expect_eq(rep.results.items[i].status, IOHW_RESULT_PASS, "reference: %s",
                     rep.results.items[i].case_id);
    printf("%s: %lld designed quantized cases\n", profile, (long long)rep.results.count);
    iohw_report_free(&rep);

    for (size_t i = 0; i < NFAULTS; i++) {
        const counts k = count_fault(dir, &FAULTS[i]);
        all.fails += k.fails;
        all.named += k.named;
        all.wrong += k.wrong;
        if (!smoke)
            continue;
        cr_expect_geq(k.tagged, MIN_CASES, "%s fails %d smoke cases tagged %s", FAULTS[i].name,
                      k.tagged, FAULTS[i].tag);
        cr_expect_geq(k.named, MIN_CASES, "%s: %d failures named \"%s\"", FAULTS[i].name,
                      k.named, FAULTS[i].diagnosis);
    }
    printf("overall: %d failing, %d named by their own fault's diagnosis (%d%%), %d named "
           "wrongly\n", all.fails, all.named, all.fails > 0 ? 100 * all.named / all.fails : 0,
           all.wrong);
    fflush(stdout);
    if (smoke) {
        cr_expect_geq(100 * all.named, MIN_NAMED_PERCENT * all.fails,
                      "%d of %d failures named (want %d%%)", all.named, all.fails,
                      MIN_NAMED_PERCENT);
        cr_expect_eq(all.wrong, 0, "%d failures named wrongly", all.wrong);
    }
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    iohw_test_sh(NULL, "%s", cmd);
}
