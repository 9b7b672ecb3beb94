/*
 * tests/test_shard_env.c - the shard of `iohw run` from the CI engines'
 * variables (cli/shard_env.h): each engine's values and their base, edge
 * cases, malformed and inconsistent variables, and precedence.  The
 * environment is a list of "NAME=VALUE" given through the getter.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <string.h>

#include "cli/shard_env.h"

/* The value of name in the NULL-terminated list ctx of "NAME=VALUE". */
static const char *from_list(const char *name, void *ctx)
{
    const char *const *vars = ctx;
    size_t n = strlen(name);
    for (; *vars != NULL; vars++)
        if (strncmp(*vars, name, n) == 0 && (*vars)[n] == '=')
            return *vars + n + 1;
    return NULL;
}

#define ENV(...) ((const char *[]){__VA_ARGS__, NULL})

static iohw_shard_env env;
static iohw_error err;

static int detect(const char **vars, int shard_total)
{
    memset(&err, 0, sizeof err);
    return iohw_cli_shard_detect(from_list, (void *)vars, shard_total, &env, &err);
}

static void expect_shard(int index, int count, const char *source)
{
    cr_expect_eq(env.index, index);
    cr_expect_eq(env.count, count);
    cr_expect_str_eq(env.source, source);
}

/* Detection succeeds and gives shard index of count from source. */
static void expect_detected(const char **vars, int shard_total, int index, int count,
                            const char *source)
{
    cr_assert_eq(detect(vars, shard_total), 0, "%s", err.msg);
    expect_shard(index, count, source);
}

/* Detection fails with a message holding each of the words. */
static void expect_error(const char **vars, int shard_total, const char *w1, const char *w2)
{
    cr_assert_eq(detect(vars, shard_total), -1, "accepted; source '%s'", env.source);
    cr_expect(strstr(err.msg, w1) != NULL, "'%s' does not name %s", err.msg, w1);
    if (w2 != NULL)
        cr_expect(strstr(err.msg, w2) != NULL, "'%s' does not name %s", err.msg, w2);
}

Test(shard_env, no_engine_means_one_shard_of_one)
{
    expect_detected(ENV("HOME=/root", "PATH=/bin"), 0, 1, 1, "");
    cr_expect_null(env.status_file);
    cr_expect_null(env.junit);
}

Test(shard_env, bazel_index_is_0_based_and_names_the_status_file)
{
    expect_detected(ENV("TEST_TOTAL_SHARDS=4", "TEST_SHARD_INDEX=0",
                        "TEST_SHARD_STATUS_FILE=/tmp/st"), 0,
                    1, 4, "Bazel's TEST_SHARD_INDEX/TEST_TOTAL_SHARDS");
    cr_expect_str_eq(env.status_file, "/tmp/st");
    expect_detected(ENV("TEST_TOTAL_SHARDS=4", "TEST_SHARD_INDEX=3"), 0,
                    4, 4, "Bazel's TEST_SHARD_INDEX/TEST_TOTAL_SHARDS");
    cr_expect_null(env.status_file);
}

Test(shard_env, bazel_xml_output_file_is_the_junit_path_even_unsharded)
{
    expect_detected(ENV("XML_OUTPUT_FILE=/out/test.xml"), 0, 1, 1, "");
    cr_expect_str_eq(env.junit, "/out/test.xml");
    expect_detected(ENV("XML_OUTPUT_FILE="), 0, 1, 1, "");
    cr_expect_null(env.junit);
}

Test(shard_env, gtest_index_is_0_based)
{
    expect_detected(ENV("GTEST_TOTAL_SHARDS=3", "GTEST_SHARD_INDEX=1",
                        "GTEST_SHARD_STATUS_FILE=/tmp/g"), 0,
                    2, 3, "gtest's GTEST_SHARD_INDEX/GTEST_TOTAL_SHARDS");
    cr_expect_str_eq(env.status_file, "/tmp/g");
}

Test(shard_env, gitlab_index_is_1_based)
{
    expect_detected(ENV("CI_NODE_INDEX=2", "CI_NODE_TOTAL=4"), 0,
                    2, 4, "GitLab's CI_NODE_INDEX/CI_NODE_TOTAL");
    cr_expect_null(env.status_file);
    expect_detected(ENV("CI_NODE_INDEX=4", "CI_NODE_TOTAL=4"), 0,
                    4, 4, "GitLab's CI_NODE_INDEX/CI_NODE_TOTAL");
}

Test(shard_env, gitlab_total_of_1_alone_is_a_job_without_parallel)
{
    expect_detected(ENV("CI_NODE_TOTAL=1"), 0, 1, 1, "");
}

Test(shard_env, kubernetes_total_comes_from_the_option_else_the_variable)
{
    expect_detected(ENV("JOB_COMPLETION_INDEX=0", "IOHW_SHARD_TOTAL=8"), 0,
                    1, 8, "Kubernetes' JOB_COMPLETION_INDEX and IOHW_SHARD_TOTAL");
    expect_detected(ENV("JOB_COMPLETION_INDEX=4", "IOHW_SHARD_TOTAL=8"), 5,
                    5, 5, "Kubernetes' JOB_COMPLETION_INDEX and --shard-total");
    expect_detected(ENV("JOB_COMPLETION_INDEX=6"), 7,
                    7, 7, "Kubernetes' JOB_COMPLETION_INDEX and --shard-total");
}

Test(shard_env, a_single_shard_is_accepted)
{
    expect_detected(ENV("TEST_TOTAL_SHARDS=1", "TEST_SHARD_INDEX=0"), 0,
                    1, 1, "Bazel's TEST_SHARD_INDEX/TEST_TOTAL_SHARDS");
    expect_detected(ENV("CI_NODE_INDEX=1", "CI_NODE_TOTAL=1"), 0,
                    1, 1, "GitLab's CI_NODE_INDEX/CI_NODE_TOTAL");
}

Test(shard_env, the_largest_count_is_accepted_and_one_more_is_not)
{
    expect_detected(ENV("GTEST_TOTAL_SHARDS=1000000", "GTEST_SHARD_INDEX=999999"), 0,
                    1000000, 1000000, "gtest's GTEST_SHARD_INDEX/GTEST_TOTAL_SHARDS");
    expect_error(ENV("GTEST_TOTAL_SHARDS=1000001", "GTEST_SHARD_INDEX=0"), 0,
                 "GTEST_TOTAL_SHARDS=1000001", "1000000");
}

Test(shard_env, an_index_out_of_range_names_both_variables)
{
    expect_error(ENV("TEST_TOTAL_SHARDS=4", "TEST_SHARD_INDEX=4"), 0,
                 "TEST_SHARD_INDEX=4", "TEST_TOTAL_SHARDS=4");
    expect_error(ENV("CI_NODE_INDEX=0", "CI_NODE_TOTAL=4"), 0, "CI_NODE_INDEX=0", "1-based");
    expect_error(ENV("CI_NODE_INDEX=5", "CI_NODE_TOTAL=4"), 0, "CI_NODE_INDEX=5", "CI_NODE_TOTAL=4");
    expect_error(ENV("JOB_COMPLETION_INDEX=3"), 3, "JOB_COMPLETION_INDEX=3", "--shard-total=3");
}

Test(shard_env, a_total_of_zero_is_an_error)
{
    expect_error(ENV("TEST_TOTAL_SHARDS=0", "TEST_SHARD_INDEX=0"), 0, "TEST_TOTAL_SHARDS=0", NULL);
    expect_error(ENV("JOB_COMPLETION_INDEX=0", "IOHW_SHARD_TOTAL=0"), 0, "IOHW_SHARD_TOTAL=0", NULL);
}

Test(shard_env, values_that_are_not_whole_numbers_are_errors_naming_the_variable)
{
    static const char *const bad[] = {"", "x", "-1", "+1", " 1", "1 ", "1.0", "0x2",
                                      "2/4", "9999999999"};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        char index[64], total[64];
        snprintf(index, sizeof index, "CI_NODE_INDEX=%s", bad[k]);
        snprintf(total, sizeof total, "GTEST_TOTAL_SHARDS=%s", bad[k]);
        expect_error(ENV(index, "CI_NODE_TOTAL=4"), 0, "CI_NODE_INDEX", "whole number");
        expect_error(ENV(total, "GTEST_SHARD_INDEX=0"), 0, "GTEST_TOTAL_SHARDS", "whole number");
    }
    expect_error(ENV("JOB_COMPLETION_INDEX=two", "IOHW_SHARD_TOTAL=4"), 0,
                 "JOB_COMPLETION_INDEX", "whole number");
    expect_error(ENV("CI_NODE_TOTAL=four"), 0, "CI_NODE_TOTAL", "whole number");
}

Test(shard_env, half_a_pair_is_an_error_naming_the_missing_variable)
{
    expect_error(ENV("TEST_SHARD_INDEX=0"), 0, "TEST_TOTAL_SHARDS", "TEST_SHARD_INDEX");
    expect_error(ENV("TEST_TOTAL_SHARDS=2"), 0, "TEST_SHARD_INDEX", "TEST_TOTAL_SHARDS");
    expect_error(ENV("GTEST_TOTAL_SHARDS=2"), 0, "GTEST_SHARD_INDEX", NULL);
    expect_error(ENV("CI_NODE_INDEX=1"), 0, "CI_NODE_TOTAL", NULL);
    expect_error(ENV("CI_NODE_TOTAL=3"), 0, "CI_NODE_INDEX", NULL);
    expect_error(ENV("JOB_COMPLETION_INDEX=0"), 0, "--shard-total", "IOHW_SHARD_TOTAL");
    expect_error(ENV("IOHW_SHARD_TOTAL=4"), 0, "JOB_COMPLETION_INDEX", NULL);
    expect_error(ENV("HOME=/"), 4, "JOB_COMPLETION_INDEX", "--shard-total");
}

Test(shard_env, bazel_comes_before_gtest_gitlab_and_kubernetes)
{
    expect_detected(ENV("JOB_COMPLETION_INDEX=5", "IOHW_SHARD_TOTAL=9",
                        "CI_NODE_INDEX=3", "CI_NODE_TOTAL=3",
                        "GTEST_SHARD_INDEX=0", "GTEST_TOTAL_SHARDS=5",
                        "TEST_SHARD_INDEX=1", "TEST_TOTAL_SHARDS=2"), 0,
                    2, 2, "Bazel's TEST_SHARD_INDEX/TEST_TOTAL_SHARDS");
    expect_detected(ENV("JOB_COMPLETION_INDEX=5", "IOHW_SHARD_TOTAL=9",
                        "CI_NODE_INDEX=3", "CI_NODE_TOTAL=3",
                        "GTEST_SHARD_INDEX=0", "GTEST_TOTAL_SHARDS=5"), 0,
                    1, 5, "gtest's GTEST_SHARD_INDEX/GTEST_TOTAL_SHARDS");
    expect_detected(ENV("JOB_COMPLETION_INDEX=5", "IOHW_SHARD_TOTAL=9",
                        "CI_NODE_INDEX=3", "CI_NODE_TOTAL=3"), 0,
                    3, 3, "GitLab's CI_NODE_INDEX/CI_NODE_TOTAL");
}

Test(shard_env, a_later_engine_is_not_read_once_an_earlier_one_decides)
{
    expect_detected(ENV("CI_NODE_INDEX=1", "CI_NODE_TOTAL=2", "JOB_COMPLETION_INDEX=x"), 0,
                    1, 2, "GitLab's CI_NODE_INDEX/CI_NODE_TOTAL");
}

Test(shard_env, shard_total_with_another_engine_is_an_error)
{
    expect_error(ENV("CI_NODE_INDEX=1", "CI_NODE_TOTAL=2"), 4, "--shard-total", "CI_NODE_INDEX");
}

/* Slurm job arrays: sbatch --array=MIN-MAX[:STEP] sets SLURM_ARRAY_TASK_ID,
 * _MIN, _MAX, _STEP and _COUNT (https://slurm.schedmd.com/job_array.html). */
Test(shard_env, slurm_array_0_to_3_gives_shards_1_to_4_of_4)
{
    expect_detected(ENV("SLURM_ARRAY_TASK_ID=0", "SLURM_ARRAY_TASK_COUNT=4",
                        "SLURM_ARRAY_TASK_MIN=0", "SLURM_ARRAY_TASK_MAX=3",
                        "SLURM_ARRAY_TASK_STEP=1"), 0, 1, 4,
                    "Slurm's SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT");
    expect_detected(ENV("SLURM_ARRAY_TASK_ID=3", "SLURM_ARRAY_TASK_COUNT=4",
                        "SLURM_ARRAY_TASK_MIN=0", "SLURM_ARRAY_TASK_MAX=3"),
                    0, 4, 4, "Slurm's SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT");
}

Test(shard_env, slurm_array_from_1_by_2_counts_from_its_minimum)
{
    /* --array=1-7:2: tasks 1, 3, 5, 7; task 5 is the third shard. */
    expect_detected(ENV("SLURM_ARRAY_TASK_ID=5", "SLURM_ARRAY_TASK_MIN=1",
                        "SLURM_ARRAY_TASK_MAX=7", "SLURM_ARRAY_TASK_STEP=2"),
                    0, 3, 4, "Slurm's SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_MIN/MAX");
    /* Only the id and the count: indices from 0. */
    expect_detected(ENV("SLURM_ARRAY_TASK_ID=2", "SLURM_ARRAY_TASK_COUNT=3"), 0,
                    3, 3, "Slurm's SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT");
}

Test(shard_env, a_slurm_index_list_or_a_stray_id_is_refused)
{
    /* --array=1,3,8: MIN 1, MAX 8, COUNT 3 is no range. */
    expect_error(ENV("SLURM_ARRAY_TASK_ID=3", "SLURM_ARRAY_TASK_COUNT=3",
                     "SLURM_ARRAY_TASK_MIN=1", "SLURM_ARRAY_TASK_MAX=8"), 0,
                 "SLURM_ARRAY_TASK_COUNT=3", "--array=MIN-MAX");
    expect_error(ENV("SLURM_ARRAY_TASK_ID=4", "SLURM_ARRAY_TASK_MIN=1",
                     "SLURM_ARRAY_TASK_MAX=7", "SLURM_ARRAY_TASK_STEP=2"), 0,
                 "SLURM_ARRAY_TASK_ID=4", "not one of");
    expect_error(ENV("SLURM_ARRAY_TASK_ID=9", "SLURM_ARRAY_TASK_COUNT=4"), 0,
                 "SLURM_ARRAY_TASK_ID=9", "4 indices");
    expect_error(ENV("SLURM_ARRAY_TASK_ID=1"), 0, "SLURM_ARRAY_TASK_MAX",
                 "SLURM_ARRAY_TASK_COUNT");
    expect_error(ENV("SLURM_ARRAY_TASK_ID=x1", "SLURM_ARRAY_TASK_COUNT=4"), 0,
                 "SLURM_ARRAY_TASK_ID='x1'", "whole number");
    expect_error(ENV("SLURM_ARRAY_TASK_ID=1", "SLURM_ARRAY_TASK_COUNT=4",
                     "SLURM_ARRAY_TASK_STEP=0"), 0, "SLURM_ARRAY_TASK_STEP=0", NULL);
    /* --shard-total is Kubernetes' alone. */
    expect_error(ENV("SLURM_ARRAY_TASK_ID=0", "SLURM_ARRAY_TASK_COUNT=4"), 4,
                 "--shard-total", "JOB_COMPLETION_INDEX");
}

Test(shard_env, the_other_engines_come_before_slurm)
{
    expect_detected(ENV("SLURM_ARRAY_TASK_ID=0", "SLURM_ARRAY_TASK_COUNT=4",
                        "CI_NODE_INDEX=2", "CI_NODE_TOTAL=3"), 0, 2, 3,
                    "GitLab's CI_NODE_INDEX/CI_NODE_TOTAL");
}
