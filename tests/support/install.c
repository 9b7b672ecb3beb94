/*
 * tests/support/install.c - installing iohw and building a project
 * against it (install.h).
 */
#include "support/install.h"

#include <criterion/criterion.h>
#include <stdlib.h>

#include "support/shell.h"

#define BUILD_DIR IOHW_BACKEND_DIR "/.."

void iohw_test_install(const char *dir)
{
    char *out = NULL;
    int rc = iohw_test_sh(&out, "rm -rf '%s' && mkdir -p '%s' && cmake --install '%s' "
                          "--prefix '%s/prefix'", dir, dir, BUILD_DIR, dir);
    cr_assert_eq(rc, 0, "cmake --install failed:\n%s", out);
    free(out);
}

void iohw_test_build_project(const char *dir, const char *src)
{
    char *out = NULL;
    int rc = iohw_test_sh(&out, "cmake -S '%s' -B '%s/build' -DCMAKE_PREFIX_PATH='%s/prefix' "
                          "&& cmake --build '%s/build'", src, dir, dir, dir);
    cr_assert_eq(rc, 0, "configuring or building %s against the install failed:\n%s", src,
                 out);
    free(out);
}
