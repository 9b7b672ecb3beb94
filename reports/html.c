/*
 * reports/html.c - the HTML report (`--html F`): one self-contained page
 * (inline CSS, script and SVG; a Content Security Policy that allows no
 * network access) with the run information, a summary by status, the
 * histogram of worst error ratios, the coverage by parameter value with a
 * pair explorer, every failing case with its details and heat map, and a
 * filterable table of all cases.
 *
 * Every string from a case or a backend goes through iohw__xml_text (or
 * iohw__json_string inside the data block), so no result can inject markup.
 */
#include "reports/reports_internal.h"

#include <math.h>
#include <string.h>

#define HTML_DETAILS_MAX 300  /* failing cases shown in full */

static void text(FILE *f, const char *s)
{
    iohw__xml_text(f, s, 0);
}

static void ratio_text(FILE *f, const iohw_result *c)
{
    if (c->elements <= 0)
        fputs("-", f);
    else if (isnan(c->worst_ratio))
        fputs("nan", f);
    else if (isinf(c->worst_ratio))
        fputs("inf", f);
    else
        fprintf(f, "%.3g", c->worst_ratio);
}

static void info_row(FILE *f, const char *name, const char *value)
{
    if (value == NULL || value[0] == '\0')
        return;
    fprintf(f, "<dt>%s</dt><dd>", name);
    text(f, value);
    fputs("</dd>\n", f);
}

static void write_header(FILE *f, const iohw_run_results *r,
                         const iohw_report_options *o, const iohw__counts *c)
{
    char buf[1024];
    fputs("<header>\n<h1>iohw report: ", f);
    text(f, r->backend_name != NULL && r->backend_name[0] != '\0' ? r->backend_name
                                                                   : "backend");
    fputs(" ", f);
    text(f, r->backend_version != NULL ? r->backend_version : "");
    fprintf(f, "</h1>\n<p><span class=\"verdict %s\">%s</span> %lld cases, %lld "
               "failing</p>\n<dl class=\"info\">\n",
            c->bad > 0 ? "bad" : "ok", c->bad > 0 ? "FAILED" : "PASSED",
            (long long)c->total, (long long)c->bad);
    info_row(f, "Backend library", o->backend_path);
    info_row(f, "Machine", iohw_machine_describe(&r->machine, buf, sizeof buf));
    iohw__iso_time(o->start_time, buf, sizeof buf);
    info_row(f, "Started", buf);
    double backend = 0;
    for (int64_t i = 0; i < r->count; i++)
        if (isfinite(r->items[i].seconds))
            backend += r->items[i].seconds;
    snprintf(buf, sizeof buf, "%.2f s (backend calls %.3f s)",
             isfinite(r->seconds) ? r->seconds : 0.0, backend);
    info_row(f, "Duration", buf);
    info_row(f, "iohw version", o->iohw_version != NULL ? o->iohw_version
                                                        : IOHW_VERSION_STRING);
    for (int i = 0; i < o->ninputs; i++)
        info_row(f, i == 0 ? "Inputs" : "", o->inputs[i]);
    info_row(f, "Filter", o->filter);
    if (o->shard_count > 1) {
        snprintf(buf, sizeof buf, "%d of %d", o->shard_index, o->shard_count);
        info_row(f, "Shard", buf);
    }
    if (o->jobs > 0 || o->timeout > 0) {
        snprintf(buf, sizeof buf, "%d jobs, timeout %g s", o->jobs, o->timeout);
        info_row(f, "Options", buf);
    }
    for (int i = 0; i < o->nsources; i++)
        info_row(f, i == 0 ? "Merged from" : "", o->sources[i]);
    if (o->baseline != NULL) {
        fputs("<dt>Baseline</dt><dd>", f);
        text(f, o->baseline->path != NULL ? o->baseline->path : "");
        fprintf(f, " (%d entries, %lld cases waived)</dd>\n", o->baseline->count,
                (long long)c->status[IOHW_RESULT_WAIVED]);
    }
    fputs("</dl>\n<p id=\"iohw-ready\" class=\"muted\">The page's script has not "
          "run.</p>\n</header>\n", f);
}

/* The passes with a note, in the console's words (harness/console.c), each
 * kind with its first case and that case's note. */
static void write_notes(FILE *f, const iohw_run_results *r, const iohw__counts *c)
{
    static const char *const note[2] = {IOHW_RESULT_NOTE_FLUSHED,
                                        IOHW_RESULT_NOTE_ROUNDING " (--rounding)"};
    const int64_t n[2] = {c->flushed, c->rounded};
    const int64_t first[2] = {c->first_flushed, c->first_rounded};
    for (int k = 0; k < 2; k++) {
        if (n[k] == 0)
            continue;
        fprintf(f, "<p class=\"noted\">PASS with a note: %lld case(s) with %s (first: ",
                (long long)n[k], note[k]);
        text(f, r->items[first[k]].case_id);
        fputs(")<br><span class=\"muted\">", f);
        text(f, r->items[first[k]].message);
        fputs("</span></p>\n", f);
    }
}

static void write_summary(FILE *f, const iohw_run_results *r,
                          const iohw_report_options *o, const iohw__counts *c)
{
    fputs("<section id=\"summary\">\n<h2>Summary</h2>\n<div class=\"cards\">\n", f);
    for (int s = 0; s < (int)IOHW_RESULT_STATUS_COUNT; s++) {
        const char *name = iohw_result_status_name((iohw_result_status)s);
        fprintf(f, "<div class=\"card%s\" title=\"", c->status[s] == 0 ? " zero" : "");
        iohw__xml_text(f, iohw_result_status_meaning((iohw_result_status)s), 1);
        fprintf(f, "\"><b class=\"s-%s\">%lld</b>%s</div>\n", name,
                (long long)c->status[s], name);
    }
    fputs("</div>\n", f);
    write_notes(f, r, c);
    int stale = iohw_baseline_stale_count(o->baseline);
    if (stale > 0) {
        fprintf(f, "<h3>Stale baseline entries (%d)</h3>\n<p>These entries match no "
                   "failing case; remove them if the bugs are fixed.</p>\n<table>"
                   "<tr><th>line</th><th>pattern</th><th>reason</th></tr>\n", stale);
        for (int k = 0; k < o->baseline->count; k++) {
            const iohw_baseline_entry *e = &o->baseline->entries[k];
            if (!iohw_baseline_entry_stale(e))
                continue;
            fprintf(f, "<tr><td class=\"num\">%d</td><td class=\"mono\">", e->line);
            text(f, e->pattern);
            fputs("</td><td>", f);
            text(f, e->reason);
            fputs("</td></tr>\n", f);
        }
        fputs("</table>\n", f);
    }
    fputs("<h3>Worst error per case</h3>\n", f);
    iohw__svg_histogram(f, r);
    fputs("</section>\n", f);
}

static void write_legend(FILE *f)
{
    fputs("<p class=\"legend\">", f);
    for (int o = 0; o < (int)IOHW_OUTCOME_COUNT; o++)
        fprintf(f, "<span><i style=\"background:%s\"></i>%s</span>",
                iohw__outcome_color((iohw_outcome)o), iohw_outcome_name((iohw_outcome)o));
    fputs("</p>\n", f);
}

static void write_coverage(FILE *f, const iohw_coverage *cov,
                           const iohw_run_results *r)
{
    fputs("<section id=\"coverage\">\n<h2>Coverage by parameter value</h2>\n", f);
    write_legend(f);
    if (cov->unknown > 0)
        fprintf(f, "<p class=\"muted\">%lld cases have no readable descriptor and are "
                   "not counted here.</p>\n", (long long)cov->unknown);
    fputs("<div class=\"factors\">\n", f);
    for (int k = 0; k < (int)IOHW_FACTOR_COUNT; k++) {
        fprintf(f, "<div><h3>%s</h3>\n<table><tr><th>value</th><th></th>"
                   "<th class=\"num\">pass</th><th class=\"num\">fail</th>"
                   "<th class=\"num\">skip</th><th class=\"num\">waived</th></tr>\n",
                iohw_factor_name((iohw_factor)k));
        for (int i = 0; i < cov->nlevels[k]; i++) {
            const iohw_factor_level *l = &cov->levels[k][i];
            fputs("<tr><td class=\"mono\">", f);
            text(f, l->value);
            fputs("</td><td>", f);
            iohw__svg_bar(f, l->count);
            fputs("</td>", f);
            for (int o = 0; o < (int)IOHW_OUTCOME_COUNT; o++)
                fprintf(f, "<td class=\"num\">%lld</td>", (long long)l->count[o]);
            fputs("</tr>\n", f);
        }
        fputs("</table></div>\n", f);
    }
    iohw_pair_summary ps;
    iohw_coverage_pairs(cov, &ps);
    char claim[256];
    fputs("</div>\n<h3>Pairs of values</h3>\n", f);
    if (iohw_run_claim_sentence(r, claim, sizeof claim) == 0)
        fprintf(f, "<p id=\"claim-coverage\">Claimed-pair coverage: %s.</p>\n", claim);
    fprintf(f, "<p>Over every pair of factors: %lld "
               "of %lld value pairs exercised, %lld all passing, %lld with a failure."
               "</p>\n<p><label>rows <select id=\"pair-a\"></select></label> "
               "<label>columns <select id=\"pair-b\"></select></label></p>\n"
               "<div id=\"pair-grid\"></div>\n</section>\n",
            (long long)ps.exercised, (long long)ps.possible, (long long)ps.passing,
            (long long)ps.failing);
}

/* One failing case; open: shown unfolded. */
static void write_failure(FILE *f, const iohw_run_results *r, int64_t i,
                          const iohw_report_options *o, int open)
{
    const iohw_result *c = &r->items[i];
    const char *status = iohw_result_status_name(c->status);
    char repro[16384];
    fprintf(f, "<details class=\"case\"%s><summary><b class=\"s-%s\">%s</b> "
               "<span class=\"mono\">", open ? " open" : "", status, status);
    if (c->direction[0] != '\0') {
        text(f, c->direction);
        fputc(' ', f);
    }
    text(f, c->case_id[0] != '\0' ? c->case_id : c->file);
    fputs("</span> ", f);
    text(f, c->message);
    fputs("</summary>\n<div class=\"body\"><div>\n", f);
    if (c->diagnosis[0] != '\0') {
        fputs("<p><b>Diagnosis:</b> ", f);
        text(f, c->diagnosis);
        fputs("</p>\n", f);
    }
    fputs("<p class=\"mono\">", f);
    text(f, c->descriptor);
    fputs("<br>tags: ", f);
    text(f, c->tags);
    fputs("<br>file: ", f);
    text(f, c->file);
    fputs("</p>\n", f);
    if (c->elements > 0) {
        char worst[256];
        iohw_result_worst_error(c, worst, sizeof worst);
        fprintf(f, "<p>%lld of %lld elements mismatch (%lld unwritten); ",
                (long long)c->mismatches, (long long)c->elements, (long long)c->unwritten);
        text(f, worst);
        fprintf(f, "%s.</p>\n", c->exact ? "; an exact case (bit equality required)" : "");
    }
    if (c->npoints > 0) {
        fputs("<table><tr><th>n</th><th>c</th><th>d</th><th>h</th><th>w</th>"
              "<th class=\"num\">expected</th><th class=\"num\">got</th>"
              "<th class=\"num\">difference</th><th class=\"num\">allowed</th></tr>\n", f);
        for (int k = 0; k < c->npoints && k < IOHW_RESULT_POINTS; k++) {
            const iohw_point *p = &c->points[k];
            fputs("<tr>", f);
            for (int a = 0; a < 5; a++)
                fprintf(f, "<td class=\"num\">%lld</td>", (long long)p->coord[a]);
            fprintf(f, "<td class=\"num\">%.9g</td><td class=\"num\">%.9g</td>"
                       "<td class=\"num\">%.3g</td><td class=\"num\">%.3g</td></tr>\n",
                    p->expected, p->got, p->got - p->expected, p->bound);
        }
        fputs("</table>\n", f);
    }
    iohw__repro(o, c, repro, sizeof repro);
    if (repro[0] != '\0') {
        fputs("<pre>", f);
        text(f, repro);
        fputs("</pre>\n", f);
    }
    fputs("</div>\n", f);
    if (c->npoints > 0 || iohw__has_errmap(c))
        iohw__svg_heatmap(f, c);
    fputs("</div></details>\n", f);
}

/* Section "verdict", above the summary: one table row per group of
 * failures (judge/verdict.h) with its smallest case's repro. */
static void verdict_head(FILE *f, const iohw_verdict *v, const char *headline)
{
    (void)v;
    fputs("<section id=\"verdict\">\n<h2>Verdict: ", f);
    text(f, headline);
    fputs("</h2>\n<table class=\"groups\"><tr><th class=\"num\">failures</th>"
          "<th>group</th><th class=\"meaning\">meaning</th><th>smallest case</th>"
          "</tr>\n", f);
}

static void verdict_row(FILE *f, const iohw__verdict_row *row)
{
    const iohw_verdict_group *g = row->g;
    const iohw_result *s = row->smallest;
    fprintf(f, "<tr><td class=\"num\">%lld</td><td>", (long long)g->count);
    text(f, g->label);
    fputs("</td><td class=\"meaning\">", f);
    text(f, g->meaning);
    fputs("</td><td><span class=\"mono\">", f);
    text(f, s->case_id[0] != '\0' ? s->case_id : s->file);
    fprintf(f, "</span> (%.0f multiply-adds)", g->smallest_macs);
    if (row->repro[0] != '\0') {
        fputs("<pre class=\"repro\">", f);
        text(f, row->repro);
        fputs("</pre>", f);
    }
    fputs("</td></tr>\n", f);
}

static void verdict_tail(FILE *f, const iohw_verdict *v)
{
    (void)v;
    fputs("</table>\n</section>\n", f);
}

static const iohw__verdict_writer html_verdict = {
    .head = verdict_head, .row = verdict_row, .tail = verdict_tail,
};

static void write_failures(FILE *f, const iohw_run_results *r,
                           const iohw_report_options *o, const iohw__counts *c)
{
    fprintf(f, "<section id=\"failures\">\n<h2>Failing cases (%lld)</h2>\n",
            (long long)c->bad);
    if (c->bad == 0)
        fputs("<p>None.</p>\n", f);
    int64_t shown = 0;
    for (int64_t i = 0; i < r->count && shown < HTML_DETAILS_MAX; i++) {
        if (!iohw_result_status_bad(r->items[i].status))
            continue;
        write_failure(f, r, i, o, shown < 20);
        shown++;
    }
    if (c->bad > shown)
        fprintf(f, "<p class=\"muted\">%lld more in the table below and in the JSON "
                   "report.</p>\n", (long long)(c->bad - shown));
    fputs("</section>\n", f);
}

static void write_table(FILE *f, const iohw_run_results *r)
{
    int timed = 0;   /* a performance run: GMAC/s and ratio per case */
    for (int64_t i = 0; i < r->count && !timed; i++)
        timed = r->items[i].repeat > 0;
    fputs("<section id=\"cases\">\n<h2>All cases</h2>\n<p><input id=\"case-filter\" "
          "type=\"search\" placeholder=\"filter: id, tag, descriptor...\" size=\"40\"> "
          "<select id=\"case-status\"><option value=\"\">every status</option>"
          "<option value=\"bad\">failing</option>", f);
    for (int s = 0; s < (int)IOHW_RESULT_STATUS_COUNT; s++)
        fprintf(f, "<option>%s</option>", iohw_result_status_name((iohw_result_status)s));
    fputs("</select> <span id=\"case-shown\" class=\"muted\"></span></p>\n"
          "<table id=\"case-table\"><thead><tr><th>status</th><th>case</th>"
          "<th>descriptor</th><th>tags</th><th class=\"num\">worst ratio</th>"
          "<th class=\"num\">mismatches</th><th class=\"num\">seconds</th>", f);
    if (timed)
        fputs("<th class=\"num\">GMAC/s</th><th class=\"num\">ratio</th>", f);
    fputs("</tr></thead>\n<tbody>\n", f);
    for (int64_t i = 0; i < r->count; i++) {
        const iohw_result *c = &r->items[i];
        const char *status = iohw_result_status_name(c->status);
        fprintf(f, "<tr data-status=\"%s\" data-bad=\"%d\"><td class=\"s-%s\">%s</td>"
                   "<td class=\"mono\">", status, iohw_result_status_bad(c->status),
                status, status);
        if (c->direction[0] != '\0') {
            text(f, c->direction);
            fputc(' ', f);
        }
        text(f, c->case_id[0] != '\0' ? c->case_id : c->file);
        fputs("</td><td class=\"mono\">", f);
        text(f, c->descriptor);
        fputs("</td><td>", f);
        text(f, c->tags);
        fputs("</td><td class=\"num\">", f);
        ratio_text(f, c);
        fprintf(f, "</td><td class=\"num\">%lld</td><td class=\"num\">%.4f</td>",
                (long long)c->mismatches, isfinite(c->seconds) ? c->seconds : 0.0);
        if (timed && c->repeat > 0)
            fprintf(f, "<td class=\"num\">%.3g</td><td class=\"num\">%.3g</td>",
                    c->gmacs, c->ratio);
        else if (timed)
            fputs("<td></td><td></td>", f);
        fputs("</tr>\n", f);
    }
    fputs("</tbody></table>\n</section>\n", f);
}

/* The data the script works from: factor names, levels, and per case its
 * level of every factor followed by its outcome. */
static void write_data(FILE *f, const iohw_coverage *cov)
{
    fputs("<script type=\"application/json\" id=\"iohw-data\">{\"factors\": [", f);
    for (int k = 0; k < (int)IOHW_FACTOR_COUNT; k++)
        fprintf(f, "%s\"%s\"", k > 0 ? ", " : "", iohw_factor_name((iohw_factor)k));
    fputs("],\n\"levels\": [", f);
    for (int k = 0; k < (int)IOHW_FACTOR_COUNT; k++) {
        fputs(k > 0 ? ", [" : "[", f);
        for (int i = 0; i < cov->nlevels[k]; i++) {
            fputs(i > 0 ? ", " : "", f);
            iohw__json_string(f, cov->levels[k][i].value);
        }
        fputs("]", f);
    }
    fputs("],\n\"cases\": [", f);
    for (int64_t i = 0; i < cov->ncases; i++) {
        fputs(i > 0 ? (i % 16 == 0 ? ",\n[" : ",[") : "[", f);
        for (int k = 0; k < (int)IOHW_FACTOR_COUNT; k++)
            fprintf(f, "%d,", cov->level_of[i * IOHW_FACTOR_COUNT + k]);
        fprintf(f, "%d]", cov->outcome[i]);
    }
    fputs("]}</script>\n", f);
}

int iohw_report_html(FILE *f, const iohw_run_results *r,
                     const iohw_report_options *o)
{
    static const iohw_report_options none;
    iohw__counts c;
    iohw_coverage cov;
    if (o == NULL)
        o = &none;
    if (iohw_coverage_build(r, &cov, NULL) != 0)
        return -1;
    iohw__count(r, &c);

    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
          "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
          "<title>", f);
    if (o->title != NULL) {
        text(f, o->title);
    } else {
        fputs("iohw report: ", f);
        text(f, r->backend_name != NULL ? r->backend_name : "");
    }
    fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n", iohw__html_css);
    write_header(f, r, o, &c);
    iohw__verdict_walk(f, r, o, &html_verdict);
    write_summary(f, r, o, &c);
    iohw__speed_html(f, r);
    write_coverage(f, &cov, r);
    write_failures(f, r, o, &c);
    write_table(f, r);
    write_data(f, &cov);
    fprintf(f, "<script>\n%s</script>\n</body>\n</html>\n", iohw__html_js);
    iohw_coverage_free(&cov);
    return ferror(f) ? -1 : 0;
}
