/*
 * tests/test_backend_example.c - the minimal backend of
 * docs/WRITING_A_BACKEND.md: the document quotes
 * examples/backend-example/mine.c exactly; the file builds against the
 * installed package (cmake --install into a temporary prefix), its ctest
 * (the smoke suite written for what it claims) passes, and it claims and
 * runs a problem from a version-1 host (struct_size IOHW_PROBLEM_SIZE_V1)
 * as it does one from this host.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sandbox/loader.h"
#include "oracle/descriptor.h"
#include "support/install.h"
#include "support/shell.h"

#define DIR IOHW_TEST_TMP "/backend_example"
#define EXAMPLE IOHW_SOURCE_DIR "/examples/backend-example"

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    cr_assert(f != NULL, "cannot open %s", path);
    char *buf = calloc(1, 1 << 20);
    cr_assert(buf != NULL);
    buf[fread(buf, 1, (1 << 20) - 1, f)] = '\0';
    fclose(f);
    return buf;
}

Test(backend_example, the_document_quotes_the_example_file_exactly)
{
    char *doc = slurp(IOHW_SOURCE_DIR "/docs/WRITING_A_BACKEND.md");
    char *code = slurp(EXAMPLE "/mine.c");
    char *start = strstr(doc, "```c\n/* mine.c");
    cr_assert(start != NULL, "no mine.c block in WRITING_A_BACKEND.md");
    start += strlen("```c\n");
    char *end = strstr(start, "```\n");
    cr_assert(end != NULL);
    *end = '\0';
    cr_expect_str_eq(start, code, "WRITING_A_BACKEND.md section 3 differs from %s",
                     EXAMPLE "/mine.c");
    cr_expect(strstr(code, "p->struct_size < IOHW_PROBLEM_SIZE_V1") != NULL);
    free(doc);
    free(code);
}

/* Fills n floats with small distinct values. */
static float *filled(int64_t n, float step)
{
    float *v = malloc((size_t)(n > 0 ? n : 1) * sizeof *v);
    cr_assert(v != NULL);
    for (int64_t i = 0; i < n; i++)
        v[i] = (float)((i * 7) % 11) * step - 1.0f;
    return v;
}

static int64_t product(const int64_t *v, uint32_t rank)
{
    int64_t n = 1;
    for (uint32_t a = 0; a < rank; a++)
        n *= v[a];
    return n;
}

/* Runs the problem with struct_size size; the output (malloc'd). */
static float *run_with_size(const iohw_loaded_backend *lb, iohw_problem p, uint32_t size)
{
    p.struct_size = size;
    cr_assert_eq(lb->table->supports(lb->ctx, &p), IOHW_OK,
                 "struct_size %u not claimed: %s", size, iohw_backend_last_error(lb));
    const int64_t nx = p.batch * p.in_channels * product(p.in_size, p.rank);
    const int64_t nw = p.in_channels * (p.out_channels / p.groups) * product(p.kernel, p.rank);
    const int64_t ny = p.batch * p.out_channels * product(p.out_size, p.rank);
    float *x = filled(nx, 0.25f), *w = filled(nw, 0.125f), *b = filled(p.out_channels, 0.5f);
    float *y = calloc((size_t)ny, sizeof *y);
    cr_assert(y != NULL);
    cr_assert_eq(lb->table->run(lb->ctx, &p, x, w, b, y), IOHW_OK, "struct_size %u: %s",
                 size, iohw_backend_last_error(lb));
    free(x);
    free(w);
    free(b);
    return y;
}

Test(backend_example, built_from_the_installed_package_it_runs_for_old_and_new_hosts,
     .timeout = 300)
{
    iohw_test_install(DIR);
    iohw_test_build_project(DIR, EXAMPLE);

    char *out = NULL;
    int rc = iohw_test_sh(&out, "cd '%s/build' && ctest --output-on-failure", DIR);
    cr_expect_eq(rc, 0, "the example's ctest failed:\n%s", out);
    cr_expect(strstr(out, "mine.all") != NULL, "%s", out);
    free(out);

    iohw_loaded_backend lb;
    iohw_error err = {{0}};
    cr_assert_eq(iohw_backend_load(DIR "/build/libmine.so", &lb, &err), 0, "%s", err.msg);
    iohw_desc d;
    cr_assert_eq(iohw_desc_parse("n=2 ci=4 co=6 g=2 in=5x7 k=3x2 s=2x1 d=1x2 pad=1:0x0:1 "
                                 "op=1x0 bias=1 xl=NCHW wl=IOHW", &d, &err), 0, "%s", err.msg);
    const int64_t ny = d.p.batch * d.p.out_channels * product(d.p.out_size, d.p.rank);
    float *v1 = run_with_size(&lb, d.p, (uint32_t)IOHW_PROBLEM_SIZE_V1);
    float *now = run_with_size(&lb, d.p, (uint32_t)sizeof(iohw_problem));
    cr_expect_eq(memcmp(v1, now, (size_t)ny * sizeof *v1), 0,
                 "a version-1 problem computes another output");
    int nonzero = 0;
    for (int64_t i = 0; i < ny; i++)
        nonzero += now[i] != 0.0f;
    cr_expect_gt(nonzero, 0, "the output was never written");

    /* Shorter than version 1: refused with a reason. */
    iohw_problem short_p = d.p;
    short_p.struct_size = (uint32_t)IOHW_PROBLEM_SIZE_V1 - 4;
    cr_expect_eq(lb.table->supports(lb.ctx, &short_p), IOHW_UNSUPPORTED);
    free(v1);
    free(now);
    iohw_backend_unload(&lb);
}
