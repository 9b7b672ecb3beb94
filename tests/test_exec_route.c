/*
 * tests/test_exec_route.c - the exec route as a user takes it: the
 * installed package holds libiohw_exec.so (iohw::exec), a case's __REPRO:
 * line carries IOHW_EXEC_COMMAND so that, pasted into a shell without it,
 * it runs the same case again, an unset IOHW_EXEC_COMMAND leaves every case
 * UNSUPPORTED (no ERROR), and h5py reads a string attribute as the
 * bytes EXEC_PROTOCOL.md says.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/install.h"
#include "support/shell.h"

#define EXEC IOHW_BACKEND_DIR "/libiohw_exec.so"

/* <TMP>/one.h5 (one case) and <TMP>/prog.sh: claims everything, fails
 * every run with "boom" on stderr.  Each test has its own TMP. */
static void setup(const char *TMP)
{
    char *out = NULL;
    int rc = iohw_test_sh(&out, "rm -rf '%s' && mkdir -p '%s' && '%s' gen --problem "
                          "'ci=2 co=3 in=4x4 k=3 xl=NCHW wl=IOHW' -o '%s/one.h5' && printf "
                          "'[ \"$1\" = --supports ] && exit 0\\n[ \"$1\" = --describe ] && "
                          "exit 1\\necho boom >&2\\nexit 3\\n' > '%s/prog.sh'",
                          TMP, TMP, IOHW_BIN, TMP, TMP);
    cr_assert_eq(rc, 0, "%s", out);
    free(out);
}

Test(exec_route, the_repro_line_carries_the_command_and_runs_the_case_again)
{
    const char *TMP = IOHW_TEST_TMP "/exec_route_repro";
    setup(TMP);
    char *out = NULL;
    int rc = iohw_test_sh(&out, "cd '%s' && IOHW_EXEC_COMMAND='sh %s/prog.sh' '%s' run "
                          "--backend '%s' one.h5 --quiet --jobs 1", TMP, TMP, IOHW_BIN, EXEC);
    cr_assert_eq(rc, 1, "%s", out);
    const char *repro = strstr(out, "__REPRO: ");
    cr_assert(repro != NULL, "%s", out);
    repro += strlen("__REPRO: ");
    char line[2048];
    snprintf(line, sizeof line, "%.*s", (int)strcspn(repro, "\n"), repro);
    char want[512];
    snprintf(want, sizeof want, "IOHW_EXEC_COMMAND='sh %s/prog.sh' iohw run --backend ", TMP);
    cr_expect(strncmp(line, want, strlen(want)) == 0, "repro: %s", line);
    free(out);

    /* Pasted into a shell that has no IOHW_EXEC_COMMAND: the same ERROR. */
    const char *rest = strstr(line, "iohw run");
    cr_assert(rest != NULL);
    rc = iohw_test_sh(&out, "cd '%s' && unset IOHW_EXEC_COMMAND && %.*s'%s'%s", TMP,
                      (int)(rest - line), line, IOHW_BIN, rest + strlen("iohw"));
    cr_expect_eq(rc, 1, "%s", out);
    cr_expect(strstr(out, "boom") != NULL, "the repro did not run the program:\n%s", out);
    free(out);
}

Test(exec_route, without_a_command_every_case_is_unsupported_not_an_error)
{
    const char *TMP = IOHW_TEST_TMP "/exec_route_unset";
    setup(TMP);
    char *out = NULL;
    int rc = iohw_test_sh(&out, "cd '%s' && unset IOHW_EXEC_COMMAND && '%s' run --backend "
                          "'%s' one.h5 --quiet --jobs 1", TMP, IOHW_BIN, EXEC);
    cr_expect_eq(rc, 1, "%s", out);
    cr_expect(strstr(out, "nothing was tested") != NULL, "%s", out);
    cr_expect(strstr(out, "UNSUPPORTED         1") != NULL, "%s", out);
    cr_expect(strstr(out, "ERROR               0") != NULL, "%s", out);
    cr_expect(strstr(out, "returned an error") == NULL, "%s", out);
    free(out);
}

Test(exec_route, the_installed_package_gives_the_exec_backend)
{
    const char *dir = IOHW_TEST_TMP "/exec_route_install";
    iohw_test_install(dir);
    char *out = NULL;
    int rc = iohw_test_sh(&out, "mkdir -p '%s/src' && printf '%%s\\n' "
                          "'cmake_minimum_required(VERSION 3.18)' 'project(u LANGUAGES NONE)' "
                          "'find_package(iohw REQUIRED)' "
                          "'get_target_property(p iohw::exec IMPORTED_LOCATION)' "
                          "'message(STATUS \"exec=${p} var=${IOHW_EXEC_BACKEND}\")' "
                          "> '%s/src/CMakeLists.txt' && cmake -S '%s/src' -B '%s/build' "
                          "-DCMAKE_PREFIX_PATH='%s/prefix'", dir, dir, dir, dir, dir);
    cr_assert_eq(rc, 0, "%s", out);
    char want[512];
    snprintf(want, sizeof want, "exec=%s/prefix/lib", dir);
    cr_expect(strstr(out, want) != NULL, "%s", out);
    free(out);
    rc = iohw_test_sh(&out, "test -f '%s/prefix/lib/iohw/libiohw_exec.so' || "
                      "ls '%s'/prefix/lib*/iohw/libiohw_exec.so", dir, dir);
    cr_expect_eq(rc, 0, "libiohw_exec.so not installed: %s", out);
    free(out);
}

Test(exec_route, h5py_reads_a_string_attribute_as_bytes_to_decode)
{
    const char *TMP = IOHW_TEST_TMP "/exec_route_h5py";
    setup(TMP);
    char *out = NULL;
    if (iohw_test_sh(&out, "/usr/bin/python3 -c 'import h5py'") != 0) {
        free(out);
        cr_skip_test("no h5py for /usr/bin/python3");
    }
    free(out);
    int rc = iohw_test_sh(&out, "/usr/bin/python3 -c 'import h5py, numpy\n"
                          "f = h5py.File(\"%s/one.h5\", \"r\")\n"
                          "a = f[\"cases/problem.0\"].attrs[\"data_layout\"]\n"
                          "assert isinstance(a, numpy.bytes_), type(a)\n"
                          "print(a.decode(\"ascii\"))'", TMP);
    cr_expect_eq(rc, 0, "%s", out);
    cr_expect(strcmp(out, "NCHW\n") == 0, "%s", out);
    free(out);
}
