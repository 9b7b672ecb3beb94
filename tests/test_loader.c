/*
 * tests/test_loader.c - loading backends (sandbox/loader.c) and the result
 * status table (results/result.c).
 *
 * The broken backends are built from backends/broken/broken.c, one defect
 * each.  Where the loader must pass on the dynamic loader's own words, the
 * expected text is obtained here by asking dlopen/dlsym the same question,
 * independently of the loader.
 */
#include <criterion/criterion.h>

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sandbox/loader.h"
#include "results/result.h"
#include "oracle/descriptor.h"

#define BACKEND(name) IOHW_BACKEND_DIR "/lib" name ".so"

/* Loads a backend that must fail; returns the message. */
static const char *load_fails(const char *path, iohw_error *err)
{
    iohw_loaded_backend lb;
    memset(&lb, 0x5A, sizeof lb);
    err->msg[0] = '\0';
    cr_assert_eq(iohw_backend_load(path, &lb, err), -1,
                 "loading %s should fail", path);
    /* Nothing stays loaded. */
    cr_expect_null(lb.handle);
    cr_expect_null(lb.table);
    cr_expect_null(lb.ctx);
    cr_expect_str_not_empty(err->msg);
    cr_expect(strstr(err->msg, path) != NULL,
              "the message names the path: %s", err->msg);
    return err->msg;
}

static void expect_contains(const char *msg, const char *part)
{
    cr_expect(strstr(msg, part) != NULL, "'%s' should contain '%s'", msg,
              part);
}

/* A small valid problem. */
static iohw_problem some_problem(void)
{
    iohw_desc d;
    iohw_error err;
    cr_assert_eq(iohw_desc_parse("ci=2 co=3 in=4x5 k=3x2 s=2x1", &d, &err), 0,
                 "%s", err.msg);
    return d.p;
}

Test(loader, loads_the_reference_backend_and_reads_its_name_and_version)
{
    iohw_loaded_backend lb;
    iohw_error err;
    cr_assert_eq(iohw_backend_load(BACKEND("iohw_reference"), &lb, &err), 0,
                 "%s", err.msg);
    cr_expect_not_null(lb.handle);
    cr_expect_str_eq(lb.table->name, "reference");
    cr_expect_str_not_empty(lb.table->version);
    cr_expect_eq(lb.table->abi_version, IOHW_ABI_VERSION);
    cr_expect_str_eq(lb.path, BACKEND("iohw_reference"));
    iohw_problem p = some_problem();
    cr_expect_eq(lb.table->supports(lb.ctx, &p), IOHW_OK);
    iohw_backend_unload(&lb);
    cr_expect_null(lb.handle);
    cr_expect_null(lb.table);
}

Test(loader, loads_the_naive_backend_and_reads_its_name_and_version)
{
    iohw_loaded_backend lb;
    iohw_error err;
    cr_assert_eq(iohw_backend_load(BACKEND("iohw_naive"), &lb, &err), 0,
                 "%s", err.msg);
    cr_expect_str_eq(lb.table->name, "naive");
    cr_expect_str_not_empty(lb.table->version);
    iohw_problem p = some_problem();
    cr_expect_eq(lb.table->supports(lb.ctx, &p), IOHW_OK);
    cr_expect_str_empty(iohw_backend_last_error(&lb));
    iohw_backend_unload(&lb);
}

Test(loader, loads_the_same_backend_twice_side_by_side)
{
    iohw_loaded_backend a, b;
    iohw_error err;
    cr_assert_eq(iohw_backend_load(BACKEND("iohw_naive"), &a, &err), 0);
    cr_assert_eq(iohw_backend_load(BACKEND("iohw_naive"), &b, &err), 0);
    cr_expect_neq(a.ctx, b.ctx, "each load has its own context");
    iohw_backend_unload(&a);
    iohw_backend_unload(&b);
}

Test(loader, unloading_twice_or_unloading_nothing_is_harmless)
{
    iohw_loaded_backend lb;
    iohw_error err;
    cr_assert_eq(iohw_backend_load(BACKEND("iohw_reference"), &lb, &err), 0);
    iohw_backend_unload(&lb);
    iohw_backend_unload(&lb);
    iohw_backend_unload(NULL);
    memset(&lb, 0, sizeof lb);
    iohw_backend_unload(&lb);
    cr_expect_str_eq(iohw_backend_last_error(&lb), "no backend loaded");
}

Test(loader, a_bare_file_name_means_the_file_in_the_current_directory)
{
    iohw_loaded_backend lb;
    iohw_error err;
    cr_assert_eq(chdir(IOHW_BACKEND_DIR), 0);
    cr_assert_eq(iohw_backend_load("libiohw_naive.so", &lb, &err), 0, "%s",
                 err.msg);
    cr_expect_str_eq(lb.table->name, "naive");
    cr_expect_str_eq(lb.path, "libiohw_naive.so");
    iohw_backend_unload(&lb);
}

Test(loader, a_missing_file_gives_dlerror_verbatim)
{
    const char *path = BACKEND("iohw_no_such_backend");
    iohw_error err;
    /* What the dynamic loader itself says. */
    cr_assert_null(dlopen(path, RTLD_NOW | RTLD_LOCAL));
    char expected[1024];
    snprintf(expected, sizeof expected, "%s", dlerror());
    const char *msg = load_fails(path, &err);
    expect_contains(msg, expected);
}

Test(loader, a_file_that_is_not_a_shared_object_gives_dlerror_verbatim)
{
    char path[512];
    snprintf(path, sizeof path, "%s/not_a_backend_%d.so", IOHW_TEST_TMP,
             (int)getpid());
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs("this is a text file, not an ELF object\n", f);
    fclose(f);
    cr_assert_null(dlopen(path, RTLD_NOW | RTLD_LOCAL));
    char expected[1024];
    snprintf(expected, sizeof expected, "%s", dlerror());
    iohw_error err;
    const char *msg = load_fails(path, &err);
    expect_contains(msg, expected);
    remove(path);
}

Test(loader, a_backend_without_the_entry_symbol_gives_dlerror_verbatim)
{
    const char *path = BACKEND("iohw_broken_no_entry");
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    cr_assert_not_null(h, "%s", dlerror());
    dlerror();
    cr_assert_null(dlsym(h, "iohw_backend_entry"));
    char expected[1024];
    snprintf(expected, sizeof expected, "%s", dlerror());
    dlclose(h);
    iohw_error err;
    const char *msg = load_fails(path, &err);
    expect_contains(msg, "iohw_backend_entry");
    expect_contains(msg, expected);
}

Test(loader, a_backend_that_refuses_the_host_version_is_reported)
{
    iohw_error err;
    const char *msg = load_fails(BACKEND("iohw_broken_null_table"), &err);
    expect_contains(msg, "returned NULL");
    expect_contains(msg, "ABI version 1");
}

Test(loader, a_backend_with_abi_version_99_is_refused)
{
    iohw_error err;
    const char *msg = load_fails(BACKEND("iohw_broken_abi99"), &err);
    expect_contains(msg, "abi_version is 99");
}

Test(loader, a_backend_with_a_short_table_is_refused)
{
    iohw_error err;
    const char *msg = load_fails(BACKEND("iohw_broken_short_struct"), &err);
    expect_contains(msg, "struct_size");
    /* offsetof(iohw_backend, run) bytes were declared. */
    char size[32];
    snprintf(size, sizeof size, "%zu bytes", offsetof(iohw_backend, run));
    expect_contains(msg, size);
}

Test(loader, a_backend_without_a_name_is_refused)
{
    iohw_error err;
    expect_contains(load_fails(BACKEND("iohw_broken_null_name"), &err),
                    "name is NULL");
}

Test(loader, a_backend_without_supports_is_refused)
{
    iohw_error err;
    expect_contains(load_fails(BACKEND("iohw_broken_null_supports"), &err),
                    "supports is NULL");
}

Test(loader, a_backend_without_run_is_refused)
{
    iohw_error err;
    expect_contains(load_fails(BACKEND("iohw_broken_null_run"), &err),
                    "run is NULL");
}

Test(loader, a_backend_without_last_error_is_refused)
{
    iohw_error err;
    expect_contains(load_fails(BACKEND("iohw_broken_null_last_error"), &err),
                    "last_error is NULL");
}

Test(loader, a_failing_init_is_reported_with_the_backends_message)
{
    iohw_error err;
    const char *msg = load_fails(BACKEND("iohw_broken_init_fails"), &err);
    expect_contains(msg, "init failed");
    expect_contains(msg, "IOHW_BACKEND_ERROR");
    expect_contains(msg, "no device available");
}

Test(loader, a_backend_that_claims_more_than_it_does_still_loads)
{
    /* Judging run() is the run's job: the loader accepts it, and the
     * backend does claim a problem, then refuses it. */
    iohw_loaded_backend lb;
    iohw_error err;
    cr_assert_eq(iohw_backend_load(BACKEND("iohw_broken_run_unsupported"),
                                   &lb, &err), 0, "%s", err.msg);
    iohw_problem p = some_problem();
    float x[1] = {0}, w[1] = {0}, y[1] = {0};
    cr_expect_eq(lb.table->supports(lb.ctx, &p), IOHW_OK);
    cr_expect_eq(lb.table->run(lb.ctx, &p, x, w, NULL, y), IOHW_UNSUPPORTED);
    expect_contains(iohw_backend_last_error(&lb), "not implemented");
    iohw_backend_unload(&lb);
}

Test(loader, a_null_last_error_text_is_replaced_by_a_placeholder)
{
    iohw_loaded_backend lb;
    iohw_error err;
    cr_assert_eq(iohw_backend_load(BACKEND("iohw_broken_null_message"), &lb,
                                   &err), 0, "%s", err.msg);
    iohw_problem p = some_problem();
    float x[1] = {0}, w[1] = {0}, y[1] = {0};
    cr_expect_eq(lb.table->run(lb.ctx, &p, x, w, NULL, y), IOHW_BACKEND_ERROR);
    const char *msg = iohw_backend_last_error(&lb);
    cr_assert_not_null(msg);
    expect_contains(msg, "NULL");
    iohw_backend_unload(&lb);
}

Test(loader, bad_arguments_are_named)
{
    iohw_loaded_backend lb;
    iohw_error err;
    cr_expect_eq(iohw_backend_load(NULL, &lb, &err), -1);
    expect_contains(err.msg, "path");
    cr_expect_eq(iohw_backend_load("", &lb, &err), -1);
    expect_contains(err.msg, "path");
    cr_expect_eq(iohw_backend_load(BACKEND("iohw_naive"), NULL, &err), -1);
    expect_contains(err.msg, "lb");
    /* Longer than PATH_MAX: no system call opens it. */
    char longpath[8192];
    memset(longpath, 'a', sizeof longpath - 1);
    longpath[sizeof longpath - 1] = '\0';
    cr_expect_eq(iohw_backend_load(longpath, &lb, &err), -1);
    expect_contains(err.msg, "longer");
}

/* --- the status table ------------------------------------------------- */

Test(result, every_status_name_parses_back_to_its_status)
{
    for (int i = 0; i < (int)IOHW_RESULT_STATUS_COUNT; i++) {
        iohw_result_status s = IOHW_RESULT_STATUS_COUNT;
        const char *name = iohw_result_status_name((iohw_result_status)i);
        cr_expect_eq(iohw_result_status_parse(name, &s), 0, "%s", name);
        cr_expect_eq((int)s, i);
        cr_expect_str_not_empty(iohw_result_status_meaning((iohw_result_status)i));
    }
}

Test(result, names_and_badness_follow_the_specification)
{
    /* SPEC 7: exit 1 on FAIL, ERROR, CRASH, TIMEOUT or INVALID. */
    static const struct {
        iohw_result_status s;
        const char *name;
        int bad;
    } want[] = {
        {IOHW_RESULT_PASS, "PASS", 0},       {IOHW_RESULT_FAIL, "FAIL", 1},
        {IOHW_RESULT_UNSUPPORTED, "UNSUPPORTED", 0},
        {IOHW_RESULT_ERROR, "ERROR", 1},     {IOHW_RESULT_CRASH, "CRASH", 1},
        {IOHW_RESULT_TIMEOUT, "TIMEOUT", 1}, {IOHW_RESULT_INVALID, "INVALID", 1},
        {IOHW_RESULT_WAIVED, "WAIVED", 0},
    };
    cr_assert_eq(sizeof want / sizeof want[0], (size_t)IOHW_RESULT_STATUS_COUNT);
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        cr_expect_str_eq(iohw_result_status_name(want[i].s), want[i].name);
        cr_expect_eq(iohw_result_status_bad(want[i].s), want[i].bad, "%s",
                     want[i].name);
    }
}

Test(result, unknown_statuses_and_names_are_handled)
{
    iohw_result_status s = IOHW_RESULT_PASS;
    cr_expect_str_eq(iohw_result_status_name(IOHW_RESULT_STATUS_COUNT), "?");
    cr_expect_str_eq(iohw_result_status_name((iohw_result_status)-1), "?");
    cr_expect_eq(iohw_result_status_bad(IOHW_RESULT_STATUS_COUNT), 1);
    cr_expect_eq(iohw_result_status_parse("pass", &s), -1, "names are upper case");
    cr_expect_eq(iohw_result_status_parse("PASSED", &s), -1);
    cr_expect_eq(iohw_result_status_parse(NULL, &s), -1);
    cr_expect_eq(s, IOHW_RESULT_PASS, "a failed parse leaves s alone");
}
