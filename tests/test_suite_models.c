/*
 * tests/test_suite_models.c - the models profile, tested on its plan (the
 * table) rather than its files, which take longer than a test should: every
 * network of issue 14 is a tag with cases, ids are unique and name the
 * network and layer, every case is a valid f32 exact problem, EnCodec's
 * k=10 s=5 layer pads asymmetrically, benchdnn's unet_3d layer is dilated,
 * the files stay under 1 GB even uncompressed, a suite inside a backend's
 * claim keeps the ids, and `iohw help gen` and `--list-profiles` show the
 * profile.
 */
#include <criterion/criterion.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "generators/suite.h"
#include "oracle/descriptor.h"
#include "oracle/problem.h"
#include "support/shell.h"
#include "support/tags.h"

#define sh iohw_test_sh

static const char *const NETWORKS[] = {
    "dcgan", "unet", "hifigan", "melgan", "encodec", "unet3d", "vnet",
    "yolov8-seg", "fcn8s", "benchdnn-alexnet", "benchdnn-googlenet",
    "benchdnn-masknet", "benchdnn-unet3d", "benchdnn-tails",
};
#define NNETS (sizeof NETWORKS / sizeof NETWORKS[0])

static iohw_plan models_plan(void)
{
    iohw_plan plan;
    iohw_error e;
    cr_assert_eq(iohw_plan_profile("models", 1, &plan, &e), 0, "%s", e.msg);
    cr_assert_gt(plan.count, 0);
    return plan;
}

Test(models_profile, every_network_is_a_tag_with_cases_whose_ids_name_it)
{
    iohw_plan plan = models_plan();
    for (size_t k = 0; k < NNETS; k++) {
        char tag[64], prefix[64];
        snprintf(tag, sizeof tag, "model-%s", NETWORKS[k]);
        snprintf(prefix, sizeof prefix, "models.%s.", NETWORKS[k]);
        int n = 0;
        for (int64_t i = 0; i < plan.count; i++) {
            const iohw_plan_case *c = &plan.cases[i];
            if (!iohw_test_has_tag(c->tags, tag))
                continue;
            n++;
            cr_expect_eq(strncmp(c->id, prefix, strlen(prefix)), 0,
                         "%s is tagged %s", c->id, tag);
            cr_expect_gt(strlen(c->id), strlen(prefix), "%s names no layer", c->id);
            cr_expect(iohw_test_has_tag(c->tags, "models"), "%s", c->id);
        }
        cr_expect_gt(n, 0, "no case of %s", NETWORKS[k]);
    }
    iohw_plan_free(&plan);
}

Test(models_profile, case_ids_are_unique_and_every_case_has_one_network)
{
    iohw_plan plan = models_plan();
    for (int64_t i = 0; i < plan.count; i++) {
        const iohw_plan_case *c = &plan.cases[i];
        for (int64_t j = i + 1; j < plan.count; j++)
            cr_expect_str_neq(c->id, plan.cases[j].id);
        int nets = 0;
        for (size_t k = 0; k < NNETS; k++) {
            char tag[64];
            snprintf(tag, sizeof tag, "model-%s", NETWORKS[k]);
            nets += iohw_test_has_tag(c->tags, tag);
        }
        cr_expect_eq(nets, 1, "%s has %d network tags", c->id, nets);
        cr_expect_str_eq(plan.files[c->file], "models.h5", "%s", c->id);
    }
    iohw_plan_free(&plan);
}

Test(models_profile, every_case_is_a_valid_f32_exact_problem_whose_descriptor_reads_back)
{
    iohw_plan plan = models_plan();
    for (int64_t i = 0; i < plan.count; i++) {
        const iohw_plan_case *c = &plan.cases[i];
        iohw_error e;
        char text[IOHW_DESC_MAX];
        cr_assert_eq(iohw_problem_validate(&c->desc.p, &e), 0, "%s: %s", c->id, e.msg);
        cr_expect_eq(c->desc.p.dtype, IOHW_F32, "%s", c->id);
        cr_expect_str_eq(c->desc.fill, "exact", "%s", c->id);
        cr_assert_gt(iohw_desc_format(&c->desc, text, sizeof text), 0, "%s", c->id);
        iohw_desc back;
        memset(&back, 0, sizeof back);
        cr_assert_eq(iohw_desc_parse(text, &back, &e), 0, "%s: %s", c->id, e.msg);
        cr_expect_eq(memcmp(&back.p, &c->desc.p, sizeof back.p), 0, "%s", c->id);
    }
    iohw_plan_free(&plan);
}

/* The first case whose id starts with prefix. */
static const iohw_plan_case *find(const iohw_plan *plan, const char *prefix)
{
    for (int64_t i = 0; i < plan->count; i++)
        if (strncmp(plan->cases[i].id, prefix, strlen(prefix)) == 0)
            return &plan->cases[i];
    cr_assert_fail("no case %s", prefix);
    return NULL;
}

Test(models_profile, encodec_k10_s5_pads_asymmetrically_and_benchdnn_unet3d_is_dilated)
{
    iohw_plan plan = models_plan();
    const iohw_problem *p = &find(&plan, "models.encodec.up5")->desc.p;
    cr_expect_eq(p->kernel[0], 10);
    cr_expect_eq(p->stride[0], 5);
    cr_expect_eq(p->pad_begin[0], 3, "SEANet trims (k-s) - (k-s)/2 at the start");
    cr_expect_eq(p->pad_end[0], 2);
    p = &find(&plan, "models.benchdnn-unet3d.")->desc.p;
    cr_expect_eq(p->rank, 3);
    for (int a = 0; a < 3; a++)
        cr_expect_eq(p->dilation[a], 2, "benchdnn's dh1 is dilation 2");
    iohw_plan_free(&plan);
}

Test(models_profile, its_files_stay_under_1_GB_even_uncompressed)
{
    iohw_plan plan = models_plan();
    int64_t bytes = 0;
    for (int64_t i = 0; i < plan.count; i++) {
        const iohw_problem *p = &plan.cases[i].desc.p;
        if (p->direction == IOHW_DIR_FWD) {
            bytes += 4 * (iohw_problem_x_count(p) + iohw_problem_w_count(p) +
                          iohw_problem_bias_count(p));
            bytes += (4 + 8 + 8) * iohw_problem_y_count(p);   /* y, y_f64, err_bound */
            continue;
        }
        /* Backward: dy and w (BWD_D) or x (BWD_W); dx, or dw and db, each
         * with its f64 value and bound. */
        bytes += 4 * (iohw_problem_dy_count(p) + (p->direction == IOHW_DIR_BWD_D
                                                      ? iohw_problem_w_count(p)
                                                      : iohw_problem_x_count(p)));
        bytes += (4 + 8 + 8) * iohw_problem_out_count(p);
    }
    cr_expect_lt(bytes, INT64_C(1000000000), "%lld bytes", (long long)bytes);
    iohw_plan_free(&plan);
}

Test(models_profile, help_and_the_profile_list_show_it)
{
    char *out;
    cr_assert_eq(sh(&out, "'%s' help gen", IOHW_BIN), 0, "%s", out);
    cr_expect(strstr(out, "smoke|ci|full|models") != NULL, "%s", out);
    cr_expect(strstr(out, "models.<network>.<layer>") != NULL, "%s", out);
    free(out);
    cr_assert_eq(sh(&out, "'%s' gen --list-profiles", IOHW_BIN), 0, "%s", out);
    cr_expect(strstr(out, "\nmodels ") != NULL, "%s", out);
    free(out);
}

Test(models_profile, a_suite_inside_a_backends_claim_keeps_the_network_and_layer_ids)
{
    char *out;
    cr_assert_eq(sh(&out, "'%s' gen --profile models --for-backend "
                    "'%s/libiohw_reference.so' --dry-run", IOHW_BIN,
                    IOHW_BACKEND_DIR), 0, "%s", out);
    cr_expect(strstr(out, "\nmodels.dcgan.deconv1\t") != NULL, "%.400s", out);
    cr_expect(strstr(out, "\nmodels.encodec.up5\t") != NULL, "%.400s", out);
    cr_expect(strstr(out, "\nct") == NULL, "%.400s", out);
    free(out);
}
