/*
 * cli/shard_env.h - `iohw run` without --shard follows the sharding of the
 * CI engine it runs under (docs/CI.md).
 *
 * The engines, in order of precedence (the first whose variables are set
 * decides; the others are not read):
 *   Bazel       TEST_SHARD_INDEX (0-based), TEST_TOTAL_SHARDS; touches
 *               TEST_SHARD_STATUS_FILE
 *   gtest       GTEST_SHARD_INDEX (0-based), GTEST_TOTAL_SHARDS; touches
 *               GTEST_SHARD_STATUS_FILE
 *   GitLab      CI_NODE_INDEX (1-based), CI_NODE_TOTAL (CI_NODE_TOTAL=1
 *               alone is a job without parallel: not sharded)
 *   Kubernetes  JOB_COMPLETION_INDEX (0-based) with the total from
 *               --shard-total N, else IOHW_SHARD_TOTAL
 *   Slurm       SLURM_ARRAY_TASK_ID of a job array MIN-MAX[:STEP]: the
 *               shard (ID - MIN) / STEP of SLURM_ARRAY_TASK_COUNT (or of
 *               (MAX - MIN) / STEP + 1); MIN absent is 0, STEP absent 1
 * A variable that is not a whole number, an index without its total (or
 * the reverse), or an index out of range is an error naming the variable.
 * Independently, Bazel's XML_OUTPUT_FILE is where JUnit goes when --junit
 * is not given.
 */
#ifndef IOHW_CLI_SHARD_ENV_H
#define IOHW_CLI_SHARD_ENV_H

#include "oracle/error.h"

/* The largest number of shards, as for --shard I/N. */
#define IOHW_SHARD_ENV_MAX 1000000

/* Reads an environment variable: its value, or NULL when it is not set. */
typedef const char *(*iohw_env_get)(const char *name, void *ctx);

typedef struct iohw_shard_env {
    int index, count;         /* 1-based, as --shard I/N; 1/1 when none */
    char source[128];         /* "GitLab's CI_NODE_INDEX/CI_NODE_TOTAL";
                                 "" when no engine shards the run */
    const char *status_file;  /* the file to touch, or NULL */
    const char *junit;        /* XML_OUTPUT_FILE when set, or NULL */
} iohw_shard_env;

/* Detects the engine's shard from the variables get returns; shard_total
 * is --shard-total (0 when not given).  0, or -1 with a message naming the
 * variable. */
int iohw_cli_shard_detect(iohw_env_get get, void *ctx, int shard_total,
                          iohw_shard_env *out, iohw_error *err);

/* Bazel's XML_OUTPUT_FILE, or NULL when it is not set or empty. */
const char *iohw_cli_xml_output(iohw_env_get get, void *ctx);

/* Before `iohw run` (cli/shard_from_env.c): unless shard_given (--shard), sets *index and *count
 * from the process environment and says which engine on stderr, and when
 * touch, touches the engine's status file; sets *junit to XML_OUTPUT_FILE
 * when it is NULL.  Returns 0, or IOHW_EXIT_USAGE after a usage message. */
int iohw_cli_shard_from_env(int shard_given, int shard_total, int touch,
                            int *index, int *count, const char **junit);

#endif
