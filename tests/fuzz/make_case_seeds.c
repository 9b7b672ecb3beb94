/*
 * tests/fuzz/make_case_seeds.c - writes the case-file harness's seeds into
 * a directory: valid case files (a grouped 3-d f32 case, the rank-2 base
 * case of tests/test_cases_break.h in f32 and f64) and the hostile files of
 * tests/support/hostile_cases.h made from them (a 2^24-wide output_padding,
 * 2^26- and 2^31-element tensors never written).  HDF5 seeds are made, not
 * checked in.  (The file that makes libhdf5 loop is no seed: the harness
 * reads in-process; test_cases_guarded.c covers it.)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cases/case.h"
#include "generators/generators.h"
#include "oracle/descriptor.h"
#include "support/hostile_cases.h"

#define BASE_ID "ct2d.x.0001"

static int write_case(const char *dir, const char *name, const char *id, const char *desc)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    iohw_desc d;
    iohw_case c;
    iohw_error err = {{0}};
    iohw_case_file *f = NULL;
    if (iohw_desc_parse(desc, &d, &err) != 0 || iohw_make_case(&d, id, NULL, 1, &c, &err) != 0)
        goto failed;
    f = iohw_case_file_create(path, &err);
    int rc = f == NULL || iohw_case_file_write(f, &c, &err) != 0;
    iohw_case_free(&c);
    if (iohw_case_file_close(f, &err) != 0 || rc)
        goto failed;
    return 0;
failed:
    fprintf(stderr, "make_case_seeds: %s: %s\n", path, err.msg);
    return -1;
}

static int hostile(const char *dir, const char *from, const char *name,
                   int (*make)(const char *, const char *, int64_t), int64_t arg)
{
    char src[4096], dst[4096], cmd[8300];
    snprintf(src, sizeof src, "%s/%s", dir, from);
    snprintf(dst, sizeof dst, "%s/%s", dir, name);
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", src, dst);
    if (system(cmd) != 0 || make(dst, BASE_ID, arg) != 0) {
        fprintf(stderr, "make_case_seeds: cannot make %s\n", dst);
        return -1;
    }
    return 0;
}

static int wide(const char *path, const char *id, int64_t unused)
{
    (void)unused;
    return iohw_test_hostile_wide_padding(path, id);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: make_case_seeds DIR\n");
        return 2;
    }
    const char *dir = argv[1];
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", dir);
    if (system(cmd) != 0)
        return 1;
    const char *base = "ci=10 co=15 in=4x3 k=5x5 bias=1";
    char base64[128];
    snprintf(base64, sizeof base64, "%s dt=f64", base);
    int rc = write_case(dir, "grouped3d.h5", "ct3d.g.0001",
                         "n=2 ci=4 co=6 g=2 in=3x4x2 k=2x3x1 s=2x1x1 bias=1") |
             write_case(dir, "base.h5", BASE_ID, base) |
             write_case(dir, "base64.h5", BASE_ID, base64);
    if (rc != 0)
        return 1;
    rc = hostile(dir, "base.h5", "wide_padding.h5", wide, 0) |
         hostile(dir, "base64.h5", "unwritten_2e26.h5", iohw_test_hostile_unwritten, 559236) |
         hostile(dir, "base64.h5", "unwritten_2e31.h5", iohw_test_hostile_unwritten, 17895693);
    printf("make_case_seeds: seeds written to %s\n", dir);
    return rc != 0;
}
