/*
 * tests/support/case_folder.c - see case_folder.h.
 */
#include "support/case_folder.h"

#include <criterion/criterion.h>
#include <ftw.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cases/case.h"
#include "generators/generators.h"
#include "oracle/descriptor.h"

void iohw_test_folder_make(iohw_test_folder *s, const char *dir, const char *const *specs,
                           int n, const char *extra)
{
    iohw_error err = {{0}};
    snprintf(s->dir, sizeof s->dir, "%s", dir);
    mkdir(s->dir, 0755);
    snprintf(s->file, sizeof s->file, "%s/q.h5", s->dir);
    s->inputs[0] = s->dir;
    iohw_case_file *f = iohw_case_file_create(s->file, &err);
    cr_assert_not_null(f, "%s", err.msg);
    for (int i = 0; i < n + (extra != NULL); i++) {
        iohw_desc d;
        iohw_case c;
        char id[32];
        const char *text = i < n ? specs[i] : extra;
        snprintf(id, sizeof id, i < n ? "q.%d" : "float.%d", i);
        cr_assert_eq(iohw_desc_parse(text, &d, &err), 0, "%s: %s", text, err.msg);
        cr_assert_eq(iohw_make_case(&d, id, NULL, 1, &c, &err), 0, "%s", err.msg);
        cr_assert_eq(iohw_case_file_write(f, &c, &err), 0, "%s", err.msg);
        iohw_case_free(&c);
    }
    cr_assert_eq(iohw_case_file_close(f, &err), 0, "%s", err.msg);
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)ftw;
    return flag == FTW_DP ? rmdir(path) : unlink(path);
}

void iohw_test_folder_remove(const iohw_test_folder *s)
{
    nftw(s->dir, remove_one, 8, FTW_DEPTH | FTW_PHYS);
}
