/*
 * reports/json.c - the JSON report (docs/REPORT_FORMAT.md, version 1).
 *
 * One object: the format version, the run information, a summary by
 * status, the baseline with every entry's matches, the coverage by factor
 * value, and every case on a line of its own (so that text diffs of two
 * reports stay readable): the result record in the form of results/record.h
 * with the report's own members appended.  Numbers JSON cannot hold are the strings "inf",
 * "-inf" and "nan".  reports/json_read.c reads it back.
 */
#include "reports/reports_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "results/record.h"

static void json_opt_string(FILE *f, const char *s)
{
    if (s == NULL)
        fputs("null", f);
    else
        iohw__json_string(f, s);
}

static void write_run(FILE *f, const iohw_run_results *r,
                      const iohw_report_options *o)
{
    char when[32];
    iohw__iso_time(o->start_time, when, sizeof when);
    fputs("  \"run\": {\n    \"backend\": {\"name\": ", f);
    iohw__json_string(f, r->backend_name);
    fputs(", \"version\": ", f);
    iohw__json_string(f, r->backend_version);
    fputs(", \"path\": ", f);
    json_opt_string(f, o->backend_path);
    fputs("},\n    \"machine\": {\"cpu\": ", f);
    iohw__json_string(f, r->machine.cpu);
    fputs(", \"features\": ", f);
    iohw__json_string(f, r->machine.features);
    if (r->machine.cpuid_brand[0] != '\0') {
        fputs(", \"cpuid_brand\": ", f);
        iohw__json_string(f, r->machine.cpuid_brand);
    }
    fputs("},\n    \"inputs\": [", f);
    for (int i = 0; i < o->ninputs; i++) {
        fputs(i > 0 ? ", " : "", f);
        iohw__json_string(f, o->inputs[i]);
    }
    fputs("],\n    \"options\": {\"filter\": ", f);
    json_opt_string(f, o->filter);
    fputs(", \"shard\": ", f);
    if (o->shard_count > 1)
        fprintf(f, "\"%d/%d\"", o->shard_index, o->shard_count);
    else
        fputs("null", f);
    fprintf(f, ", \"jobs\": %d, \"timeout\": ", o->jobs);
    iohw__json_double(f, o->timeout);
    fputs("},\n    \"start_time\": ", f);
    json_opt_string(f, when[0] != '\0' ? when : NULL);
    fputs(",\n    \"seconds\": ", f);
    iohw__json_double(f, r->seconds);
    double backend_seconds = 0;
    for (int64_t i = 0; i < r->count; i++)
        if (isfinite(r->items[i].seconds))
            backend_seconds += r->items[i].seconds;
    fputs(",\n    \"backend_seconds\": ", f);
    iohw__json_double(f, backend_seconds);
    fprintf(f, ",\n    \"resumed\": %lld,\n    \"sources\": [", (long long)r->resumed);
    for (int i = 0; i < o->nsources; i++) {
        fputs(i > 0 ? ", " : "", f);
        iohw__json_string(f, o->sources[i]);
    }
    fputs("]\n  },\n", f);
}

static void write_summary(FILE *f, const iohw_run_results *r)
{
    iohw__counts c;
    iohw__count(r, &c);
    fprintf(f, "  \"summary\": {\"total\": %lld", (long long)c.total);
    for (int s = 0; s < (int)IOHW_RESULT_STATUS_COUNT; s++)
        fprintf(f, ", \"%s\": %lld", iohw_result_status_name((iohw_result_status)s),
                (long long)c.status[s]);
    fprintf(f, ", \"passed_with_note\": %lld, \"exit_code\": %d},\n", (long long)c.noted,
            c.bad > 0 ? 1 : 0);
}

static void write_baseline(FILE *f, const iohw_baseline *b)
{
    fputs("  \"baseline\": ", f);
    if (b == NULL) {
        fputs("null,\n", f);
        return;
    }
    fputs("{\"file\": ", f);
    iohw__json_string(f, b->path);
    fputs(", \"entries\": [", f);
    for (int i = 0; i < b->count; i++) {
        const iohw_baseline_entry *e = &b->entries[i];
        fputs(i > 0 ? ",\n    {\"pattern\": " : "\n    {\"pattern\": ", f);
        iohw__json_string(f, e->pattern);
        fputs(", \"reason\": ", f);
        iohw__json_string(f, e->reason);
        fputs(", \"condition\": ", f);
        iohw__json_string(f, e->condition);
        fprintf(f, ", \"applies\": %s, \"line\": %d, \"matched\": %lld}",
                e->inapplicable ? "false" : "true", e->line, (long long)e->matched);
    }
    fputs("],\n    \"stale\": [", f);
    int k = 0;
    for (int i = 0; i < b->count; i++) {
        if (!iohw_baseline_entry_stale(&b->entries[i]))
            continue;
        fputs(k++ > 0 ? ", " : "", f);
        iohw__json_string(f, b->entries[i].pattern);
    }
    fputs("]},\n", f);
}

static void write_coverage(FILE *f, const iohw_run_results *r)
{
    iohw_coverage cov;
    fputs("  \"coverage\": ", f);
    if (iohw_coverage_build(r, &cov, NULL) != 0) {
        fputs("null,\n", f);
        return;
    }
    fprintf(f, "{\"unknown\": %lld, \"factors\": {", (long long)cov.unknown);
    for (int k = 0; k < (int)IOHW_FACTOR_COUNT; k++) {
        fputs(k > 0 ? ",\n    " : "\n    ", f);
        iohw__json_string(f, iohw_factor_name((iohw_factor)k));
        fputs(": {", f);
        for (int i = 0; i < cov.nlevels[k]; i++) {
            const iohw_factor_level *l = &cov.levels[k][i];
            fputs(i > 0 ? ", " : "", f);
            iohw__json_string(f, l->value);
            fputs(": {", f);
            for (int o = 0; o < (int)IOHW_OUTCOME_COUNT; o++)
                fprintf(f, "%s\"%s\": %lld", o > 0 ? ", " : "",
                        iohw_outcome_name((iohw_outcome)o), (long long)l->count[o]);
            fputs("}", f);
        }
        fputs("}", f);
    }
    iohw_pair_summary ps;
    iohw_coverage_pairs(&cov, &ps);
    fprintf(f, "},\n    \"pairs\": {\"possible\": %lld, \"exercised\": %lld, "
               "\"passing\": %lld, \"failing\": %lld}},\n",
            (long long)ps.possible, (long long)ps.exercised, (long long)ps.passing,
            (long long)ps.failing);
    iohw_coverage_free(&cov);
}

/* The claimed-pair coverage (cli/claim.h); null when not computed. */
static void write_claim(FILE *f, const iohw_run_results *r)
{
    fputs("  \"claim_coverage\": ", f);
    if (!r->claim_known) {
        fputs("null,\n", f);
        return;
    }
    fprintf(f, "{\"pairs_claimed\": %lld, \"pairs_covered\": %lld, \"percent\": ",
            (long long)r->claim_pairs, (long long)r->claim_covered);
    iohw__json_double(f, r->claim_pairs > 0 ? 100.0 * (double)r->claim_covered
                                                / (double)r->claim_pairs : 100.0);
    fputs("},\n", f);
}

/* A case: the result record (results/record.h), then what the report adds. */
static int write_case(FILE *f, const iohw_run_results *r, int64_t i,
                      const iohw_report_options *o)
{
    const iohw_result *c = &r->items[i];
    char category[160], repro[16384];
    char *rec = iohw_record_encode_alloc(c);
    if (rec == NULL)
        return -1;
    iohw_report_category(c, category, sizeof category);
    iohw__repro(o, c, repro, sizeof repro);
    fputs("    ", f);
    fwrite(rec, 1, strlen(rec) - 1, f);  /* without its closing brace */
    free(rec);
    fputs(", \"category\": ", f);
    iohw__json_string(f, category);
    fputs(", \"repro\": ", f);
    iohw__json_string(f, repro);
    fputs(", \"wall\": ", f);
    if (r->wall != NULL)
        iohw__json_double(f, r->wall[i]);
    else
        fputs("null", f);
    fputs("}", f);
    return 0;
}

/* The verdict (appended): the failures grouped by diagnosis, largest
 * group first (judge/verdict.h). */
static void verdict_head(FILE *f, const iohw_verdict *v, const char *headline)
{
    fprintf(f, "  \"verdict\": {\"failures\": %lld, \"headline\": ", (long long)v->failures);
    iohw__json_string(f, headline);
    fputs(", \"groups\": [", f);
}

static void verdict_row(FILE *f, const iohw__verdict_row *row)
{
    const iohw_verdict_group *g = row->g;
    fprintf(f, "%s\n    {\"count\": %lld, \"diagnosis\": ", row->k ? "," : "",
            (long long)g->count);
    if (g->diagnosis >= 0)
        iohw__json_string(f, g->label);
    else
        fputs("null", f);
    fputs(", \"label\": ", f);
    iohw__json_string(f, g->label);
    fputs(", \"meaning\": ", f);
    iohw__json_string(f, g->meaning);
    fputs(", \"smallest\": ", f);
    iohw__json_string(f, row->smallest->case_id);
    fputs(", \"smallest_macs\": ", f);
    iohw__json_double(f, g->smallest_macs);
    fputs(", \"repro\": ", f);
    iohw__json_string(f, row->repro);
    fputs("}", f);
}

static void verdict_tail(FILE *f, const iohw_verdict *v)
{
    fputs(v->count > 0 ? "\n  ]}\n" : "]}\n", f);
}

static const iohw__verdict_writer json_verdict = {
    .head = verdict_head, .row = verdict_row, .tail = verdict_tail,
    .always = 1,
};

int iohw_report_json(FILE *f, const iohw_run_results *r,
                     const iohw_report_options *o)
{
    static const iohw_report_options none;
    if (o == NULL)
        o = &none;
    fprintf(f, "{\n  \"iohw_report_version\": %d,\n  \"iohw_version\": ",
            IOHW_REPORT_VERSION);
    iohw__json_string(f, o->iohw_version != NULL ? o->iohw_version : IOHW_VERSION_STRING);
    fputs(",\n", f);
    write_run(f, r, o);
    write_summary(f, r);
    write_baseline(f, o->baseline);
    write_coverage(f, r);
    write_claim(f, r);
    fputs("  \"cases\": [", f);
    for (int64_t i = 0; i < r->count; i++) {
        fputs(i > 0 ? ",\n" : "\n", f);
        if (write_case(f, r, i, o) != 0)
            return -1;
    }
    fputs(r->count > 0 ? "\n  ],\n" : "],\n", f);
    if (iohw__verdict_walk(f, r, o, &json_verdict) != 0)
        return -1;
    fputs("}\n", f);
    return ferror(f) ? -1 : 0;
}
