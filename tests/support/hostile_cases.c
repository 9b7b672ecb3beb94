/*
 * tests/support/hostile_cases.c - hostile case files (see hostile_cases.h).
 */
#include "support/hostile_cases.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hdf5.h>

/* Opens path read-write and the case's group. */
static int open_case(const char *path, const char *id, hid_t *f, hid_t *g)
{
    char group[300];
    snprintf(group, sizeof group, "/cases/%s", id);
    *f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    *g = *f >= 0 ? H5Gopen2(*f, group, H5P_DEFAULT) : -1;
    if (*g < 0) {
        if (*f >= 0)
            H5Fclose(*f);
        return -1;
    }
    return 0;
}

static int close_case(hid_t f, hid_t g, int rc)
{
    H5Gclose(g);
    return H5Fclose(f) < 0 ? -1 : rc;
}

/* Replaces attribute name by n int64 values (0: a scalar). */
static int set_ints(hid_t g, const char *name, int n, const int64_t *v)
{
    if (H5Aexists(g, name) > 0 && H5Adelete(g, name) < 0)
        return -1;
    hsize_t dims[1] = {(hsize_t)n};
    hid_t s = n ? H5Screate_simple(1, dims, NULL) : H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(g, name, H5T_STD_I64LE, s, H5P_DEFAULT, H5P_DEFAULT);
    int rc = a >= 0 && H5Awrite(a, H5T_NATIVE_INT64, v) >= 0 ? 0 : -1;
    if (a >= 0)
        H5Aclose(a);
    H5Sclose(s);
    return rc;
}

int iohw_test_hostile_heap_loop(const char *path, const char *id)
{
    hid_t f, g;
    if (open_case(path, id, &f, &g) != 0)
        return -1;
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, H5T_VARIABLE);
    hid_t s = H5Screate(H5S_SCALAR);
    const char *tags = "2d,bias";
    int rc = H5Adelete(g, "tags") >= 0 ? 0 : -1;
    hid_t a = rc == 0 ? H5Acreate2(g, "tags", t, s, H5P_DEFAULT, H5P_DEFAULT) : -1;
    if (a < 0 || H5Awrite(a, t, &tags) < 0)
        rc = -1;
    if (a >= 0)
        H5Aclose(a);
    H5Sclose(s);
    H5Tclose(t);
    if (close_case(f, g, rc) != 0)
        return -1;

    /* The global heap collection: "GCOL", version, reserved, size (16
     * bytes); object 1: index, references, reserved, then its size. */
    FILE *fp = fopen(path, "r+b");
    if (fp == NULL)
        return -1;
    unsigned char *buf = malloc(1 << 20);
    size_t n = buf != NULL ? fread(buf, 1, 1 << 20, fp) : 0;
    long at = -1;
    for (size_t i = 0; i + 4 <= n && at < 0; i++)
        if (memcmp(buf + i, "GCOL", 4) == 0)
            at = (long)i;
    free(buf);
    rc = at >= 0 && fseek(fp, at + 24, SEEK_SET) == 0 && fputc(0xff, fp) != EOF ? 0 : -1;
    return fclose(fp) != 0 ? -1 : rc;
}

int iohw_test_hostile_wide_padding(const char *path, const char *id)
{
    hid_t f, g;
    if (open_case(path, id, &f, &g) != 0)
        return -1;
    int64_t op[2] = {0, (int64_t)1 << 24}, out[2] = {8, 7 + ((int64_t)1 << 24)};
    int rc = set_ints(g, "output_padding", 2, op) | set_ints(g, "out_size", 2, out);
    if (H5Ldelete(g, "y", H5P_DEFAULT) < 0)
        rc = -1;
    return close_case(f, g, rc);
}

/* Dataset name re-created as f64 of the given extents, never written. */
static int unwritten_ds(hid_t g, const char *name, int ndim, const hsize_t *dims)
{
    if (H5Lexists(g, name, H5P_DEFAULT) > 0 && H5Ldelete(g, name, H5P_DEFAULT) < 0)
        return -1;
    hid_t s = H5Screate_simple(ndim, dims, NULL);
    hid_t d = H5Dcreate2(g, name, H5T_IEEE_F64LE, s, H5P_DEFAULT, H5P_DEFAULT,
                         H5P_DEFAULT);
    H5Sclose(s);
    return d >= 0 && H5Dclose(d) >= 0 ? 0 : -1;
}

int iohw_test_hostile_unwritten(const char *path, const char *id, int64_t width)
{
    hid_t f, g;
    if (open_case(path, id, &f, &g) != 0)
        return -1;
    int64_t in[2] = {4, width}, out[2] = {8, width + 4};
    int64_t terms = 200;  /* C_in x 4 x 5 taps reach an element */
    hsize_t xd[4] = {1, 10, 4, (hsize_t)width};
    hsize_t yd[4] = {1, 15, 8, (hsize_t)(width + 4)};
    int rc = set_ints(g, "in_size", 2, in) | set_ints(g, "out_size", 2, out) |
             set_ints(g, "terms_max", 0, &terms) | unwritten_ds(g, "x", 4, xd) |
             unwritten_ds(g, "y", 4, yd) | unwritten_ds(g, "y_f64", 4, yd) |
             unwritten_ds(g, "err_bound", 4, yd);
    return close_case(f, g, rc);
}
