/*
 * reports/speed.c - the speed part of the Markdown and HTML reports of a
 * performance run (`iohw run --repeat N`, results/speed.h): per class the
 * cases timed, the total of their median run() times, the median GMAC/s and
 * the median ratio to the reference, then the slowest cases.  Nothing when
 * no result was timed.
 */
#include "reports/reports_internal.h"

#include "results/speed.h"

static void ratio_cell(FILE *f, double ratio)
{
    if (ratio > 0)
        fprintf(f, "%.3g", ratio);
    else
        fputs("-", f);
}

static const char SPEED_NOTE[] =
    "run() called %d time(s) per case on the same inputs; time: its median; "
    "ratio: the reference's median time over the backend's (above 1: faster "
    "than the reference).";

void iohw__speed_markdown(FILE *f, const iohw_run_results *r)
{
    iohw_speed s;
    if (iohw_speed_build(r, &s) != 0)
        return;
    if (s.all.cases > 0) {
        fputs("\n**Speed**: ", f);
        fprintf(f, SPEED_NOTE, s.repeat);
        fputs("\n\n| class | cases | total ms | median GMAC/s | median ratio |\n"
              "|---|---:|---:|---:|---:|\n", f);
        for (int c = 0; c <= s.nclasses; c++) {
            const iohw_speed_class *k = c < s.nclasses ? &s.classes[c] : &s.all;
            fprintf(f, "| %s | %lld | %.3f | %.3g | ", k->name,
                    (long long)k->cases, k->total_ms, k->gmacs);
            ratio_cell(f, k->ratio);
            fputs(" |\n", f);
        }
        fputs("\nSlowest cases:\n\n| case | ms | GMAC/s | ratio |\n"
              "|---|---:|---:|---:|\n", f);
        for (int k = 0; k < s.nslowest; k++) {
            const iohw_result *x = &r->items[s.slowest[k]];
            fputs("| ", f);
            iohw__md_cell(f, x->case_id, 120);
            fprintf(f, " | %.3f | %.3g | ", x->time_ms, x->gmacs);
            ratio_cell(f, x->ratio);
            fputs(" |\n", f);
        }
    }
    iohw_speed_free(&s);
}

static void html_row(FILE *f, const char *name, int64_t cases, double ms,
                     double gmacs, double ratio)
{
    fputs("<tr><td>", f);
    iohw__xml_text(f, name, 0);
    if (cases >= 0)
        fprintf(f, "</td><td class=\"num\">%lld", (long long)cases);
    fprintf(f, "</td><td class=\"num\">%.3f</td><td class=\"num\">%.3g</td>"
            "<td class=\"num\">", ms, gmacs);
    ratio_cell(f, ratio);
    fputs("</td></tr>\n", f);
}

void iohw__speed_html(FILE *f, const iohw_run_results *r)
{
    iohw_speed s;
    if (iohw_speed_build(r, &s) != 0)
        return;
    if (s.all.cases > 0) {
        fputs("<section id=\"speed\">\n<h2>Speed</h2>\n<p>", f);
        fprintf(f, SPEED_NOTE, s.repeat);
        fputs("</p>\n<table><tr><th>class</th><th class=\"num\">cases</th>"
              "<th class=\"num\">total ms</th><th class=\"num\">median GMAC/s"
              "</th><th class=\"num\">median ratio</th></tr>\n", f);
        for (int c = 0; c <= s.nclasses; c++) {
            const iohw_speed_class *k = c < s.nclasses ? &s.classes[c] : &s.all;
            html_row(f, k->name, k->cases, k->total_ms, k->gmacs, k->ratio);
        }
        fputs("</table>\n<h3>Slowest cases</h3>\n<table><tr><th>case</th>"
              "<th class=\"num\">ms</th><th class=\"num\">GMAC/s</th>"
              "<th class=\"num\">ratio</th></tr>\n", f);
        for (int k = 0; k < s.nslowest; k++) {
            const iohw_result *x = &r->items[s.slowest[k]];
            html_row(f, x->case_id, -1, x->time_ms, x->gmacs, x->ratio);
        }
        fputs("</table>\n</section>\n", f);
    }
    iohw_speed_free(&s);
}
