/*
 * tests/test_long_texts_run.c - no text of a result is cut, end to end:
 * `iohw run` with the exec backend and tests/exec/serve_oracle.py in its
 * "long" mode (a 4 KB name and version, a 4 KB refusal reason, a 4 KB
 * error message) on a case file about 4 KB deep whose cases carry a 4 KB
 * tag.  Each text is read back whole from the console, the JSON report,
 * the JUnit report and the journal (specification section 7).
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cases/case.h"
#include "generators/generators.h"
#include "oracle/descriptor.h"
#include "support/shell.h"

#define PYTHON "/usr/bin/python3"
#define SERVE IOHW_SOURCE_DIR "/tests/exec/serve_oracle.py"

/* serve_oracle.py's 4 KB text. */
static char long_text[4097];
/* A 4 KB tag of the cases. */
static char long_tag[4097];
/* The folder, about 3,900 bytes deep, and the case file in it. */
static char dir[4096], file[4200];

static void make_dir(void)
{
    char seg[201];
    memset(seg, 's', 200);
    seg[200] = '\0';
    int n = snprintf(dir, sizeof dir, "%s/long-%d", IOHW_TEST_TMP, (int)getpid());
    while (n + 201 < 3900)
        n += snprintf(dir + n, sizeof dir - (size_t)n, "/%s", seg);
    snprintf(file, sizeof file, "%s/c.h5", dir);
    cr_assert_eq(iohw_test_sh(NULL, "mkdir -p '%s'", dir), 0);
}

/* Cases long.0 (co=3: passes), long.1 (co=5: refused) and long.2 (co=7:
 * the program reports an error), each tagged long_tag. */
static void make_cases(void)
{
    static const char *const specs[] = {"ci=2 co=3 in=4x4 k=3", "ci=2 co=5 in=4x4 k=3",
                                        "ci=2 co=7 in=4x4 k=3"};
    iohw_error err = {{0}};
    iohw_case_file *f = iohw_case_file_create(file, &err);
    cr_assert_not_null(f, "%s", err.msg);
    for (int i = 0; i < 3; i++) {
        iohw_desc d;
        iohw_case c;
        char id[16];
        snprintf(id, sizeof id, "long.%d", i);
        cr_assert_eq(iohw_desc_parse(specs[i], &d, &err), 0, "%s", err.msg);
        cr_assert_eq(iohw_make_case(&d, id, long_tag, 1, &c, &err), 0, "%s", err.msg);
        cr_assert_eq(iohw_case_file_write(f, &c, &err), 0, "%s", err.msg);
        iohw_case_free(&c);
    }
    cr_assert_eq(iohw_case_file_close(f, &err), 0, "%s", err.msg);
}

static char *slurp(const char *name)
{
    char *out = NULL;
    cr_assert_eq(iohw_test_sh(&out, "cat '%s/%s'", dir, name), 0, "%s is missing", name);
    return out;
}

/* Occurrences of want in text. */
static int count(const char *text, const char *want)
{
    int n = 0;
    for (const char *s = strstr(text, want); s != NULL; s = strstr(s + 1, want))
        n++;
    return n;
}

static void expect_holds(const char *what, const char *text, const char *want, int at_least)
{
    cr_expect_geq(count(text, want), at_least, "%s holds '%.40s...' (%zu bytes) %d times, "
                  "not at least %d", what, want, strlen(want), count(text, want), at_least);
}

Test(long_texts_run, a_4k_name_version_reason_message_tag_and_path_are_whole_everywhere,
     .timeout = 600)
{
    if (access(PYTHON, X_OK) != 0)
        cr_skip_test(PYTHON " is missing");
    memset(long_text, 'L', 4093);
    memcpy(long_text + 4093, "END", 4);
    memset(long_tag, 'T', 4093);
    memcpy(long_tag + 4093, "GAT", 4);
    make_dir();
    make_cases();
    char *out = NULL;
    int rc = iohw_test_sh(&out, "cd '%s' && IOHW_EXEC_COMMAND='" PYTHON " " SERVE " %s long' "
                          "'%s' run --backend '%s/libiohw_exec.so' '%s' --jobs 1 --timeout 300 "
                          "--json r.json --junit j.xml --journal run.jsonl",
                          dir, IOHW_BIN, IOHW_BIN, IOHW_BACKEND_DIR, file);
    cr_expect_eq(rc, 1, "iohw run: %d (an ERROR makes 1)\n%.2000s", rc, out);
    char *json = slurp("r.json"), *junit = slurp("j.xml"), *journal = slurp("run.jsonl");

    /* long.1's refusal (run() refuses it: the class was claimed) and
     * long.2's error message, both ERROR, plus the backend's name and
     * version in the console and the reports; the journal holds results
     * only.  Before texts were kept whole the messages were cut at 1024
     * bytes (2, 2, 2 and 0). */
    expect_holds("the console", out, long_text, 4);
    expect_holds("the JSON report", json, long_text, 4);
    expect_holds("the JUnit report", junit, long_text, 4);
    expect_holds("the journal", journal, long_text, 2);
    /* The backend's name and version (each with long_text). */
    char name[4200];
    snprintf(name, sizeof name, "exec:%s", long_text);
    expect_holds("the console", out, name, 1);
    expect_holds("the JSON report", json, name, 1);
    /* The case file's path and the cases' tag. */
    expect_holds("the console", out, file, 1);
    expect_holds("the JSON report", json, file, 3);
    expect_holds("the journal", journal, file, 3);
    expect_holds("the JUnit report", junit, file, 1);
    expect_holds("the JSON report", json, long_tag, 3);
    expect_holds("the journal", journal, long_tag, 3);

    /* What iohw wrote it reads: the journal resumes, every case done. */
    char *again = NULL;
    rc = iohw_test_sh(&again, "cd '%s' && IOHW_EXEC_COMMAND='" PYTHON " " SERVE " %s long' "
                      "'%s' run --backend '%s/libiohw_exec.so' '%s' --jobs 1 --journal run.jsonl "
                      "--resume --json r2.json",
                      dir, IOHW_BIN, IOHW_BIN, IOHW_BACKEND_DIR, file);
    cr_expect_eq(rc, 1, "%.2000s", again);
    char *json2 = slurp("r2.json");
    expect_holds("the resumed JSON report", json2, long_text, 4);
    expect_holds("the resumed JSON report", json2, long_tag, 3);
    free(json2);
    free(again);
    free(out);
    free(json);
    free(junit);
    free(journal);
    iohw_test_sh(NULL, "rm -rf '%s/long-%d'", IOHW_TEST_TMP, (int)getpid());
}

/* A shared object reached through a path about 4 KB long loads, runs and
 * is named whole in the report. */
Test(long_texts_run, a_backend_at_a_4k_path_loads_and_is_named_whole, .timeout = 600)
{
    memset(long_tag, 'T', 4093);
    memcpy(long_tag + 4093, "GAT", 4);
    make_dir();
    make_cases();
    char *out = NULL;
    int rc = iohw_test_sh(&out, "cd '%s' && ln -s '%s/libiohw_reference.so' lib.so && '%s' run "
                          "--backend '%s/lib.so' '%s' --jobs 1 --json r.json",
                          dir, IOHW_BACKEND_DIR, IOHW_BIN, dir, file);
    cr_expect_eq(rc, 0, "%.3000s", out);
    char *json = slurp("r.json"), lib[4200];
    snprintf(lib, sizeof lib, "%s/lib.so", dir);
    expect_holds("the JSON report", json, lib, 1);
    expect_holds("the JSON report", json, "\"status\": \"PASS\"", 3);
    free(json);
    free(out);
    iohw_test_sh(NULL, "rm -rf '%s/long-%d'", IOHW_TEST_TMP, (int)getpid());
}
