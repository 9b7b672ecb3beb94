/*
 * tests/test_install.c - iohw used from another project: `cmake --install`
 * of this build tree into a temporary prefix, then the stand-alone example
 * (examples/external-backend: its own small backend) configured and built
 * against it with CMAKE_PREFIX_PATH, and its ctest run: the suite fixture
 * and one test per shard.  A project whose backend is the seeded I/O-swap
 * fault, given as a path, must get a red ctest that names a shard.
 *
 * The installed iohw is built like this tree (with the sanitizers in the
 * test build); the example's backend is built without them and loaded into
 * it, with the test's ASAN_OPTIONS and LSAN_OPTIONS in the environment.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/install.h"
#include "support/shell.h"

/* The lines of ctest's output after "The following tests FAILED:", or "". */
static const char *failed_list(const char *out)
{
    const char *at = strstr(out, "The following tests FAILED:");
    return at != NULL ? at : "";
}

Test(install, package_files)
{
    const char *dir = IOHW_TEST_TMP "/install_files";
    iohw_test_install(dir);
    char *out = NULL;
    int rc = iohw_test_sh(&out, "cd '%s/prefix' && find . -type f | sort", dir);
    cr_assert_eq(rc, 0);
    const char *files[] = {"./bin/iohw", "./include/iohw/backend.h", "/iohwConfig.cmake",
                           "/iohwConfigVersion.cmake", "/iohwTargets.cmake",
                           "/iohwConformance.cmake", "./share/pkgconfig/iohw.pc",
                           "./share/doc/iohw/WRITING_A_BACKEND.md",
                           "./share/doc/iohw/README.md"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
        cr_expect(strstr(out, files[i]) != NULL, "%s not installed; installed:\n%s", files[i],
                  out);
    free(out);

    /* iohw.pc follows the prefix it was installed into. */
    rc = iohw_test_sh(&out, "PKG_CONFIG_PATH='%s/prefix/share/pkgconfig' pkg-config "
                      "--cflags iohw && PKG_CONFIG_PATH='%s/prefix/share/pkgconfig' "
                      "pkg-config --variable=iohw iohw", dir, dir);
    cr_assert_eq(rc, 0, "pkg-config iohw:\n%s", out);
    cr_expect(strstr(out, "-I" IOHW_TEST_TMP "/install_files/prefix/") != NULL, "%s", out);
    cr_expect(strstr(out, "/bin/iohw") != NULL, "%s", out);
    free(out);

    /* The installed program's help names the installed documentation. */
    rc = iohw_test_sh(&out, "'%s/prefix/bin/iohw' help", dir);
    cr_assert_eq(rc, 0, "%s", out);
    cr_expect(strstr(out, "kernel): " IOHW_TEST_TMP "/install_files/prefix/share/doc/iohw\n")
              != NULL, "%s", out);
    free(out);
}

Test(install, example_project_runs_its_shards)
{
    const char *dir = IOHW_TEST_TMP "/install_example";
    iohw_test_install(dir);
    iohw_test_build_project(dir, IOHW_SOURCE_DIR "/examples/external-backend");

    char *out = NULL;
    int rc = iohw_test_sh(&out, "cd '%s/build' && ctest -N -L iohw-smoke", dir);
    cr_assert_eq(rc, 0, "%s", out);
    cr_expect(strstr(out, "tconv.gen") != NULL, "%s", out);
    cr_expect(strstr(out, "tconv.shard-1-of-2") != NULL, "%s", out);
    cr_expect(strstr(out, "tconv.shard-2-of-2") != NULL, "%s", out);
    cr_expect(strstr(out, "tconv.all") != NULL, "%s", out);
    cr_expect(strstr(out, "Total Tests: 4") != NULL, "%s", out);
    free(out);

    rc = iohw_test_sh(&out, "cd '%s/build' && ctest -j2 --output-on-failure", dir);
    cr_assert_eq(rc, 0, "the example's ctest failed:\n%s", out);
    cr_expect(strstr(out, "100% tests passed, 0 tests failed out of 4") != NULL, "%s", out);
    free(out);

    /* Each shard left its JUnit XML where the function says. */
    for (int i = 1; i <= 2; i++) {
        rc = iohw_test_sh(&out, "grep -c '<testsuite' "
                          "'%s/build/iohw-reports/tconv/shard-%d-of-2.junit.xml'", dir, i);
        cr_expect_eq(rc, 0, "shard %d wrote no JUnit XML: %s", i, out);
        free(out);
    }
}

/* Writes <dir>/src/CMakeLists.txt: a project that finds iohw, then body. */
static void write_project(const char *dir, const char *body)
{
    char *out = NULL;
    int rc = iohw_test_sh(&out, "mkdir -p '%s/src'", dir);
    cr_assert_eq(rc, 0, "%s", out);
    free(out);
    char path[512];
    snprintf(path, sizeof path, "%s/src/CMakeLists.txt", dir);
    FILE *f = fopen(path, "w");
    cr_assert(f != NULL, "cannot write %s", path);
    fprintf(f, "cmake_minimum_required(VERSION 3.18)\nproject(user LANGUAGES NONE)\n"
               "find_package(iohw REQUIRED)\nenable_testing()\n%s\n", body);
    cr_assert_eq(fclose(f), 0);
}

Test(install, wrong_backend_fails_a_shard)
{
    const char *dir = IOHW_TEST_TMP "/install_wrong";
    iohw_test_install(dir);
    /* The same backend twice: plain, and with every case waived by a
     * baseline (a path relative to the project's source folder). */
    write_project(dir,
        "iohw_add_conformance_test(NAME swapped PROFILE smoke SHARDS 2 ARGS --jobs 2\n"
        "  BACKEND " IOHW_BACKEND_DIR "/libiohw_fault_io_swap.so)\n"
        "file(WRITE ${CMAKE_CURRENT_SOURCE_DIR}/known.txt \"*  the seeded I/O swap\\n\")\n"
        "iohw_add_conformance_test(NAME waived PROFILE smoke BASELINE known.txt\n"
        "  ARGS --jobs 2 BACKEND " IOHW_BACKEND_DIR "/libiohw_fault_io_swap.so)");
    char src[512];
    snprintf(src, sizeof src, "%s/src", dir);
    iohw_test_build_project(dir, src);

    char *out = NULL;
    int rc = iohw_test_sh(&out, "cd '%s/build' && ctest -j2", dir);
    cr_expect_neq(rc, 0, "ctest passed with the I/O-swap backend:\n%s", out);
    const char *failed = failed_list(out);
    cr_expect(strstr(failed, "swapped.shard-") != NULL, "no shard test failed:\n%s", out);
    cr_expect(strstr(failed, "swapped.gen") == NULL, "the suite was not written:\n%s", out);
    cr_expect(strstr(out, "waived.shard-1-of-1 ...") != NULL, "%s", out);
    cr_expect(strstr(failed, "waived.") == NULL, "the baseline did not waive:\n%s", out);
    free(out);
}

Test(install, bad_arguments_stop_the_configuration)
{
    const char *dir = IOHW_TEST_TMP "/install_bad";
    iohw_test_install(dir);
    write_project(dir, "iohw_add_conformance_test(NAME bad PROFILE smoke SHARDS 0 "
                       "BACKEND libnone.so)");
    char *out = NULL;
    int rc = iohw_test_sh(&out, "cmake -S '%s/src' -B '%s/build' -DCMAKE_PREFIX_PATH='%s/prefix'",
                          dir, dir, dir);
    cr_expect_neq(rc, 0, "%s", out);
    cr_expect(strstr(out, "SHARDS '0' is not a positive integer") != NULL, "%s", out);
    free(out);
}

/* A narrow backend: its shards may hold no case it claims, and pass; only
 * the whole run (tconv.all, the merge of the shards) must compare some
 * case.  FOR_BACKEND writes a suite inside what the backend claims. */
Test(install, a_shard_may_be_empty_but_not_the_whole_run)
{
    const char *dir = IOHW_TEST_TMP "/install_narrow";
    iohw_test_install(dir);
    write_project(dir,
        "set(narrow " IOHW_BACKEND_DIR "/libiohw_narrow.so)\n"
        "iohw_add_conformance_test(NAME wide PROFILE smoke SHARDS 24 BACKEND ${narrow}\n"
        "  ARGS --jobs 1)\n"
        "iohw_add_conformance_test(NAME none PROFILE smoke SHARDS 2 BACKEND ${narrow}\n"
        "  ARGS --jobs 1 --filter rank=1)\n"
        "iohw_add_conformance_test(NAME fitted PROFILE smoke FOR_BACKEND BACKEND ${narrow}\n"
        "  ARGS --jobs 1)");
    char src[512];
    snprintf(src, sizeof src, "%s/src", dir);
    iohw_test_build_project(dir, src);

    char *out = NULL;
    int rc = iohw_test_sh(&out, "cd '%s/build' && ctest -j2", dir);
    cr_expect_neq(rc, 0, "nothing compared, yet ctest passed:\n%s", out);
    const char *failed = failed_list(out);
    cr_expect(strstr(failed, "none.all") != NULL, "none.all did not fail:\n%s", out);
    cr_expect(strstr(failed, "none.shard") == NULL, "an empty shard failed:\n%s", out);
    cr_expect(strstr(failed, "wide.") == NULL, "a shard of the narrow backend failed:\n%s",
              out);
    cr_expect(strstr(failed, "fitted.") == NULL, "%s", out);
    free(out);

    /* Some shard of 24 held no claimed case (else the test proves nothing). */
    rc = iohw_test_sh(&out, "cd '%s/build/iohw-reports/wide' && grep -L '\"status\": \"PASS\"' "
                      "shard-*-of-24.json", dir);
    cr_expect(out[0] != '\0', "every shard compared some case; use more shards");
    free(out);
    /* The suite written for the backend holds only cases it claims. */
    rc = iohw_test_sh(&out, "grep -c '\"status\": \"UNSUPPORTED\"' "
                      "'%s/build/iohw-reports/fitted/shard-1-of-1.json'", dir);
    cr_expect_eq(rc, 1, "UNSUPPORTED cases in the fitted suite:\n%s", out);
    free(out);
}
