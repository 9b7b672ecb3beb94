/*
 * reports/markdown.c - a short Markdown summary (`--markdown F`) for CI job
 * summaries (GitHub's $GITHUB_STEP_SUMMARY and the like): the verdict, a
 * table by status, the first failing cases, stale baseline entries and the
 * coverage in one line per factor.
 */
#include "reports/reports_internal.h"

#include <math.h>
#include <string.h>

#define MD_FAILURES_MAX 25

static void write_failures(FILE *f, const iohw_run_results *r,
                           const iohw__counts *c, const iohw_report_options *o)
{
    if (c->bad == 0)
        return;
    fprintf(f, "\n**Failing cases** (%lld", (long long)c->bad);
    if (c->bad > MD_FAILURES_MAX)
        fprintf(f, ", first %d shown", MD_FAILURES_MAX);
    fputs(")\n\n| status | case | message | diagnosis |\n|---|---|---|---|\n", f);
    int shown = 0;
    for (int64_t i = 0; i < r->count && shown < MD_FAILURES_MAX; i++) {
        const iohw_result *x = &r->items[i];
        if (!iohw_result_status_bad(x->status))
            continue;
        shown++;
        fprintf(f, "| %s | ", iohw_result_status_name(x->status));
        if (x->direction[0] != '\0')
            fprintf(f, "%s ", x->direction);
        iohw__md_cell(f, x->case_id[0] != '\0' ? x->case_id : x->file, 120);
        fputs(" | ", f);
        iohw__md_cell(f, x->message, 160);
        fputs(" | ", f);
        iohw__md_cell(f, x->diagnosis, 120);
        fputs(" |\n", f);
    }
    /* One repro command to start from. */
    for (int64_t i = 0; i < r->count; i++) {
        if (!iohw_result_status_bad(r->items[i].status))
            continue;
        char repro[16384];
        iohw__repro(o, &r->items[i], repro, sizeof repro);
        if (repro[0] != '\0' && strchr(repro, '`') == NULL)
            fprintf(f, "\nReproduce the first one:\n\n```\n%s\n```\n", repro);
        break;
    }
}

/* Under the title: the groups of failures (judge/verdict.h) as a table,
 * then a code block with each group's smallest repro. */
static void verdict_head(FILE *f, const iohw_verdict *v, const char *headline)
{
    (void)v;
    fputs("**Verdict: ", f);
    iohw__md_cell(f, headline, 400);
    fputs("**\n\n| failures | group | meaning | smallest case |\n|---:|---|---|---|\n", f);
}

static void verdict_row(FILE *f, const iohw__verdict_row *row)
{
    const iohw_verdict_group *g = row->g;
    const iohw_result *s = row->smallest;
    fprintf(f, "| %lld | ", (long long)g->count);
    iohw__md_cell(f, g->label, 200);
    fputs(" | ", f);
    iohw__md_cell(f, g->meaning, 200);
    fputs(" | ", f);
    iohw__md_cell(f, s->case_id[0] != '\0' ? s->case_id : s->file, 120);
    fprintf(f, " (%.0f multiply-adds) |\n", g->smallest_macs);
}

static void verdict_tail(FILE *f, const iohw_verdict *v)
{
    (void)v;
    fputc('\n', f);
}

static void verdict_note(FILE *f, const iohw__verdict_row *row)
{
    if (row->repro[0] != '\0' && strchr(row->repro, '`') == NULL)
        fprintf(f, "Group %d, smallest case:\n\n```\n%s\n```\n\n", row->k + 1,
                row->repro);
}

static const iohw__verdict_writer md_verdict = {
    .head = verdict_head, .row = verdict_row, .tail = verdict_tail,
    .note = verdict_note, .max_rows = MD_FAILURES_MAX,
};

static void write_coverage(FILE *f, const iohw_run_results *r)
{
    iohw_coverage cov;
    if (r->count == 0 || iohw_coverage_build(r, &cov, NULL) != 0)
        return;
    fputs("\n<details><summary>Coverage by parameter value</summary>\n\n"
          "| factor | values (pass/fail/skip/waived) |\n|---|---|\n", f);
    for (int k = 0; k < (int)IOHW_FACTOR_COUNT; k++) {
        fprintf(f, "| %s | ", iohw_factor_name((iohw_factor)k));
        for (int i = 0; i < cov.nlevels[k]; i++) {
            const iohw_factor_level *l = &cov.levels[k][i];
            fputs(i > 0 ? ", " : "", f);
            iohw__md_cell(f, l->value, 40);
            fprintf(f, " %lld/%lld/%lld/%lld", (long long)l->count[0],
                    (long long)l->count[1], (long long)l->count[2],
                    (long long)l->count[3]);
        }
        fputs(" |\n", f);
    }
    iohw_pair_summary ps;
    iohw_coverage_pairs(&cov, &ps);
    fprintf(f, "\nValue pairs: %lld of %lld exercised, %lld all passing, %lld with "
               "a failure.", (long long)ps.exercised, (long long)ps.possible,
            (long long)ps.passing, (long long)ps.failing);
    if (cov.unknown > 0)
        fprintf(f, " %lld cases without a readable descriptor.", (long long)cov.unknown);
    char claim[256];
    if (iohw_run_claim_sentence(r, claim, sizeof claim) == 0)
        fprintf(f, "\n\nClaimed-pair coverage: %s.", claim);
    fputs("\n\n</details>\n", f);
    iohw_coverage_free(&cov);
}

int iohw_report_markdown(FILE *f, const iohw_run_results *r,
                         const iohw_report_options *o)
{
    static const iohw_report_options none;
    iohw__counts c;
    if (o == NULL)
        o = &none;
    iohw__count(r, &c);

    fputs("### iohw: ", f);
    iohw__md_cell(f, r->backend_name != NULL && r->backend_name[0] != '\0'
                         ? r->backend_name : "backend", 100);
    if (r->backend_version != NULL && r->backend_version[0] != '\0') {
        fputs(" ", f);
        iohw__md_cell(f, r->backend_version, 128);
    }
    fprintf(f, " - %s\n\n", c.bad > 0 ? "**FAILED**" : "passed");
    iohw__verdict_walk(f, r, o, &md_verdict);
    char machine[512];
    fputs("Machine: ", f);
    iohw__md_cell(f, iohw_machine_describe(&r->machine, machine, sizeof machine), 300);
    fputs(".\n\n", f);
    fprintf(f, "%lld cases in %.1f s: %lld pass, %lld fail, %lld unsupported",
            (long long)c.total, isfinite(r->seconds) ? r->seconds : 0.0,
            (long long)c.status[IOHW_RESULT_PASS], (long long)c.bad,
            (long long)c.status[IOHW_RESULT_UNSUPPORTED]);
    if (c.status[IOHW_RESULT_WAIVED] > 0)
        fprintf(f, ", %lld waived", (long long)c.status[IOHW_RESULT_WAIVED]);
    fputs(".\n\n| status | cases |\n|---|---:|\n", f);
    for (int s = 0; s < (int)IOHW_RESULT_STATUS_COUNT; s++)
        if (c.status[s] > 0)
            fprintf(f, "| %s | %lld |\n", iohw_result_status_name((iohw_result_status)s),
                    (long long)c.status[s]);
    if (c.flushed > 0)
        fprintf(f, "\n%lld PASS with a note: " IOHW_RESULT_NOTE_FLUSHED
                   " (`--subnormals flush`).\n", (long long)c.flushed);
    if (c.rounded > 0)
        fprintf(f, "\n%lld PASS with a note: " IOHW_RESULT_NOTE_ROUNDING
                   " (`--rounding`): their outputs differ from the cases' by one "
                   "at ties.\n", (long long)c.rounded);
    write_failures(f, r, &c, o);
    iohw__speed_markdown(f, r);

    int stale = iohw_baseline_stale_count(o->baseline);
    if (stale > 0) {
        fprintf(f, "\n**Stale baseline entries** (%d, they match no failing case):\n\n",
                stale);
        for (int k = 0; k < o->baseline->count; k++) {
            const iohw_baseline_entry *e = &o->baseline->entries[k];
            if (!iohw_baseline_entry_stale(e))
                continue;
            fputs("- ", f);
            iohw__md_cell(f, e->pattern, 120);
            fputs(" - ", f);
            iohw__md_cell(f, e->reason, 160);
            fputc('\n', f);
        }
    }
    write_coverage(f, r);
    return ferror(f) ? -1 : 0;
}
