/*
 * tests/test_convention_torch.c - conv=torch (specification section 12)
 * against PyTorch itself: for random 1-d problems and requested output
 * sizes around the valid range, tests/check_conv_torch.py asks
 * torch.nn.ConvTranspose1d for the output_padding it derives
 * (_ConvTransposeNd._output_padding) and the length of the output it
 * returns, or whether it refuses; the resolver must agree on every one.
 * Skipped only when /usr/bin/python3 cannot import torch.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "generators/generators.h"
#include "oracle/convention.h"
#include "oracle/problem.h"
#include "support/shell.h"

#define PY "/usr/bin/python3"
#define PROBLEMS 400

typedef struct tproblem {
    int64_t L, K, S, D, P, O;
} tproblem;

/* A problem whose smallest output (P at most half the uncropped output)
 * is >= 1, and a requested size from one below the range to one above. */
static tproblem draw(iohw_rng *s)
{
    tproblem t;
    t.L = iohw_rng_range(s, 1, 7);
    t.K = iohw_rng_range(s, 1, 5);
    t.S = iohw_rng_range(s, 1, 4);
    t.D = iohw_rng_range(s, 1, 3);
    const int64_t F = (t.L - 1) * t.S + (t.K - 1) * t.D + 1;
    t.P = iohw_rng_range(s, 0, (F - 1) / 2);
    const int64_t lo = F - 2 * t.P;
    t.O = iohw_rng_range(s, lo > 1 ? lo - 1 : 1, lo + t.S);
    return t;
}

/* The resolver's answer: 0 with output_padding and out_size, or -1. */
static int resolve(const tproblem *t, int64_t *op, int64_t *out)
{
    iohw_problem p;
    iohw_problem_init(&p);
    p.rank = 1;
    p.in_channels = p.out_channels = 1;
    p.in_size[0] = t->L;
    p.kernel[0] = t->K;
    p.stride[0] = t->S;
    p.dilation[0] = t->D;
    p.pad_begin[0] = p.pad_end[0] = t->P;
    p.convention = IOHW_CONV_TORCH;
    p.out_shape[0] = t->O;
    if (iohw_convention_resolve(&p, NULL) != 0)
        return -1;
    *op = p.output_padding[0];
    *out = p.out_size[0];
    return 0;
}

Test(convention_torch, output_size_agrees_with_pytorch_on_random_problems)
{
    if (iohw_test_sh(NULL, PY " -c 'import torch'") != 0)
        cr_skip_test(PY " cannot import torch (apt-get install python3-torch)");
    char in_path[512], out_path[512];
    snprintf(in_path, sizeof in_path, "%s/conv-torch-%ld.in", IOHW_TEST_TMP, (long)getpid());
    snprintf(out_path, sizeof out_path, "%s/conv-torch-%ld.out", IOHW_TEST_TMP,
             (long)getpid());
    tproblem t[PROBLEMS];
    iohw_rng rng;
    iohw_rng_seed(&rng, 20261203);
    FILE *f = fopen(in_path, "w");
    cr_assert_not_null(f, "%s", in_path);
    for (int i = 0; i < PROBLEMS; i++) {
        t[i] = draw(&rng);
        fprintf(f, "%lld %lld %lld %lld %lld %lld\n", (long long)t[i].L, (long long)t[i].K,
                (long long)t[i].S, (long long)t[i].D, (long long)t[i].P, (long long)t[i].O);
    }
    fclose(f);
    char *log = NULL;
    int rc = iohw_test_sh(&log, PY " '%s/tests/check_conv_torch.py' < '%s' > '%s'",
                          IOHW_SOURCE_DIR, in_path, out_path);
    cr_assert_eq(rc, 0, "%s", log);
    free(log);

    f = fopen(out_path, "r");
    cr_assert_not_null(f, "%s", out_path);
    int accepted = 0, refused = 0;
    char line[128];
    for (int i = 0; i < PROBLEMS; i++) {
        cr_assert_not_null(fgets(line, sizeof line, f), "line %d missing", i);
        int64_t op = -1, out = -1;
        const int ours = resolve(&t[i], &op, &out);
        const tproblem *q = &t[i];
        if (strncmp(line, "reject", 6) == 0) {
            refused++;
            cr_expect_neq(ours, 0, "L=%lld K=%lld S=%lld D=%lld P=%lld O=%lld: PyTorch "
                          "refuses, the resolver gives op %lld", (long long)q->L,
                          (long long)q->K, (long long)q->S, (long long)q->D,
                          (long long)q->P, (long long)q->O, (long long)op);
            continue;
        }
        long long a = -1, y = -1;
        cr_assert_eq(sscanf(line, "%lld %lld", &a, &y), 2, "line %d: %s", i, line);
        accepted++;
        cr_expect_eq(ours, 0, "L=%lld K=%lld S=%lld D=%lld P=%lld O=%lld: the resolver "
                     "refuses", (long long)q->L, (long long)q->K, (long long)q->S,
                     (long long)q->D, (long long)q->P, (long long)q->O);
        cr_expect_eq(op, a, "op of L=%lld K=%lld S=%lld D=%lld P=%lld O=%lld",
                     (long long)q->L, (long long)q->K, (long long)q->S, (long long)q->D,
                     (long long)q->P, (long long)q->O);
        cr_expect_eq(out, y, "output size");
        cr_expect_eq(y, q->O, "PyTorch returned another length than it was asked");
    }
    fclose(f);
    remove(in_path);
    remove(out_path);
    /* Both sides of the range are exercised. */
    cr_expect_gt(accepted, PROBLEMS / 3);
    cr_expect_gt(refused, PROBLEMS / 10);
}
