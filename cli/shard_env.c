/*
 * cli/shard_env.c - the shard of `iohw run` from the CI engine's variables
 * (cli/shard_env.h has the engines and their order).
 */
#include "cli/shard_env.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One engine's protocol.  total_var NULL: the total comes from
 * --shard-total or IOHW_SHARD_TOTAL (Kubernetes). */
typedef struct engine {
    const char *name;
    const char *index_var, *total_var;
    int base;                 /* the index of the first shard: 0 or 1 */
    const char *status_var;   /* the file to touch, or NULL */
} engine;

static const engine ENGINES[] = {
    {"Bazel's", "TEST_SHARD_INDEX", "TEST_TOTAL_SHARDS", 0, "TEST_SHARD_STATUS_FILE"},
    {"gtest's", "GTEST_SHARD_INDEX", "GTEST_TOTAL_SHARDS", 0, "GTEST_SHARD_STATUS_FILE"},
    {"GitLab's", "CI_NODE_INDEX", "CI_NODE_TOTAL", 1, NULL},
    {"Kubernetes'", "JOB_COMPLETION_INDEX", NULL, 0, NULL},
};
#define NENGINES (sizeof ENGINES / sizeof ENGINES[0])

#define TOTAL_VAR "IOHW_SHARD_TOTAL"

/* Parses a variable's value as a whole number (digits only) into *v. */
static int parse_count(const char *name, const char *text, long *v, iohw_error *err)
{
    size_t n = strlen(text);
    if (n == 0 || n > 9 || strspn(text, "0123456789") != n)
        return iohw_error_set(err, "%s='%s': expected a whole number (at most 9 "
                              "digits)", name, text);
    *v = strtol(text, NULL, 10);
    return 0;
}

/* 1 when the engine's variables say the run is sharded by it. */
static int present(const engine *e, iohw_env_get get, void *ctx, int shard_total)
{
    if (get(e->index_var, ctx) != NULL)
        return 1;
    if (e->total_var == NULL)
        return shard_total > 0 || get(TOTAL_VAR, ctx) != NULL;
    const char *total = get(e->total_var, ctx);
    /* GitLab sets CI_NODE_TOTAL=1 in every job without parallel:. */
    return total != NULL && !(e->base == 1 && strcmp(total, "1") == 0);
}

/* The total of the engine e: its variable's value, or for Kubernetes
 * --shard-total, else IOHW_SHARD_TOTAL.  Names the source in *name. */
static int total_of(const engine *e, iohw_env_get get, void *ctx, int shard_total,
                    long *total, const char **name, iohw_error *err)
{
    *name = e->total_var != NULL ? e->total_var : TOTAL_VAR;
    if (e->total_var == NULL && shard_total > 0) {
        *name = "--shard-total";
        *total = shard_total;
        return 0;
    }
    const char *text = get(*name, ctx);
    if (text == NULL)
        return iohw_error_set(err, "%s is set but %s is not%s", e->index_var, *name,
                              e->total_var == NULL ? ": give the number of shards "
                              "with --shard-total N or " TOTAL_VAR : "");
    if (parse_count(*name, text, total, err) != 0)
        return -1;
    if (*total < 1 || *total > IOHW_SHARD_ENV_MAX)
        return iohw_error_set(err, "%s=%ld: the number of shards must be from 1 to %d",
                              *name, *total, IOHW_SHARD_ENV_MAX);
    return 0;
}

/* Reads the shard of engine e into out. */
static int read_engine(const engine *e, iohw_env_get get, void *ctx, int shard_total,
                       iohw_shard_env *out, iohw_error *err)
{
    long total = 0, index = 0;
    const char *total_name = "";
    if (total_of(e, get, ctx, shard_total, &total, &total_name, err) != 0)
        return -1;
    const char *text = get(e->index_var, ctx);
    if (text == NULL)
        return iohw_error_set(err, "%s is set but %s is not", total_name, e->index_var);
    if (parse_count(e->index_var, text, &index, err) != 0)
        return -1;
    if (index < e->base || index - e->base >= total)
        return iohw_error_set(err, "%s=%ld is out of range for %s=%ld (%d-based: "
                              "%d to %ld)", e->index_var, index, total_name, total,
                              e->base, e->base, total - 1 + e->base);
    out->index = (int)(index - e->base) + 1;
    out->count = (int)total;
    snprintf(out->source, sizeof out->source, "%s %s%s%s", e->name, e->index_var,
             e->total_var != NULL ? "/" : " and ", total_name);
    out->status_file = e->status_var != NULL ? get(e->status_var, ctx) : NULL;
    return 0;
}

/* Slurm's job array (sbatch --array=MIN-MAX[:STEP]): the shard of task ID
 * is (ID - MIN) / STEP, of COUNT tasks (SLURM_ARRAY_TASK_COUNT, or from MIN,
 * MAX and STEP).  MIN absent is 0 and STEP absent is 1, Slurm's defaults;
 * indices that are not such a range (--array=1,3,8) are refused. */
#define SLURM_ID "SLURM_ARRAY_TASK_ID"

/* The variable name's whole number into *v, or dflt when it is not set
 * (dflt < 0: it must be set). */
static int slurm_value(iohw_env_get get, void *ctx, const char *name, long dflt,
                       long *v, iohw_error *err)
{
    const char *text = get(name, ctx);
    if (text == NULL) {
        *v = dflt;
        return dflt < 0 ? iohw_error_set(err, SLURM_ID " is set but %s is not "
                                         "(nor SLURM_ARRAY_TASK_COUNT)", name) : 0;
    }
    return parse_count(name, text, v, err);
}

/* The number of tasks of the array whose indices run from lo by step. */
static int slurm_count(iohw_env_get get, void *ctx, long lo, long step, long *count,
                       iohw_error *err)
{
    long hi = 0;
    if (get("SLURM_ARRAY_TASK_MAX", ctx) != NULL) {
        if (slurm_value(get, ctx, "SLURM_ARRAY_TASK_MAX", -1, &hi, err) != 0)
            return -1;
        if (hi < lo || (hi - lo) % step != 0)
            return iohw_error_set(err, "SLURM_ARRAY_TASK_MIN=%ld, SLURM_ARRAY_TASK_MAX"
                                  "=%ld and SLURM_ARRAY_TASK_STEP=%ld are not a range",
                                  lo, hi, step);
    }
    if (get("SLURM_ARRAY_TASK_COUNT", ctx) == NULL)
        return slurm_value(get, ctx, "SLURM_ARRAY_TASK_MAX", -1, &hi, err) != 0 ? -1
               : (*count = (hi - lo) / step + 1, 0);
    if (slurm_value(get, ctx, "SLURM_ARRAY_TASK_COUNT", -1, count, err) != 0)
        return -1;
    if (get("SLURM_ARRAY_TASK_MAX", ctx) != NULL && *count != (hi - lo) / step + 1)
        return iohw_error_set(err, "SLURM_ARRAY_TASK_COUNT=%ld, but the indices %ld to "
                              "%ld by %ld are %ld: give the array as one range "
                              "(--array=MIN-MAX[:STEP]), not a list", *count, lo, hi,
                              step, (hi - lo) / step + 1);
    return 0;
}

static int read_slurm(iohw_env_get get, void *ctx, iohw_shard_env *out, iohw_error *err)
{
    long id = 0, lo = 0, step = 1, count = 0;
    if (slurm_value(get, ctx, SLURM_ID, -1, &id, err) != 0 ||
        slurm_value(get, ctx, "SLURM_ARRAY_TASK_MIN", 0, &lo, err) != 0 ||
        slurm_value(get, ctx, "SLURM_ARRAY_TASK_STEP", 1, &step, err) != 0)
        return -1;
    if (step < 1)
        return iohw_error_set(err, "SLURM_ARRAY_TASK_STEP=%ld: the step must be at "
                              "least 1", step);
    if (slurm_count(get, ctx, lo, step, &count, err) != 0)
        return -1;
    if (count < 1 || count > IOHW_SHARD_ENV_MAX)
        return iohw_error_set(err, "SLURM_ARRAY_TASK_COUNT=%ld: the number of shards "
                              "must be from 1 to %d", count, IOHW_SHARD_ENV_MAX);
    if (id < lo || (id - lo) % step != 0 || (id - lo) / step >= count)
        return iohw_error_set(err, SLURM_ID "=%ld is not one of the array's %ld "
                              "indices (%ld, %ld, ... by %ld)", id, count, lo,
                              lo + step, step);
    out->index = (int)((id - lo) / step) + 1;
    out->count = (int)count;
    snprintf(out->source, sizeof out->source, "Slurm's " SLURM_ID "/%s",
             get("SLURM_ARRAY_TASK_COUNT", ctx) != NULL ? "SLURM_ARRAY_TASK_COUNT"
             : "SLURM_ARRAY_TASK_MIN/MAX");
    return 0;
}

const char *iohw_cli_xml_output(iohw_env_get get, void *ctx)
{
    const char *xml = get("XML_OUTPUT_FILE", ctx);
    return xml != NULL && xml[0] != '\0' ? xml : NULL;
}

int iohw_cli_shard_detect(iohw_env_get get, void *ctx, int shard_total,
                          iohw_shard_env *out, iohw_error *err)
{
    memset(out, 0, sizeof *out);
    out->index = out->count = 1;
    out->junit = iohw_cli_xml_output(get, ctx);
    for (size_t k = 0; k < NENGINES; k++) {
        const engine *e = &ENGINES[k];
        if (!present(e, get, ctx, shard_total))
            continue;
        if (shard_total > 0 && e->total_var != NULL)
            return iohw_error_set(err, "--shard-total goes with Kubernetes' "
                                  "JOB_COMPLETION_INDEX, but the shard comes from "
                                  "%s %s", e->name, e->index_var);
        return read_engine(e, get, ctx, shard_total, out, err);
    }
    /* (--shard-total makes the Kubernetes engine present: it is read first
     * and wants its index.) */
    if (get(SLURM_ID, ctx) != NULL)
        return read_slurm(get, ctx, out, err);
    return 0;
}
