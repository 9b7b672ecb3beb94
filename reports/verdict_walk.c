/*
 * reports/verdict_walk.c - the one walk over the verdict's groups that the
 * HTML, Markdown and JSON writers share (reports_internal.h); each writer
 * says only how a part looks.
 */
#include "reports/reports_internal.h"

int iohw__verdict_walk(FILE *f, const iohw_run_results *r,
                       const iohw_report_options *o,
                       const iohw__verdict_writer *w)
{
    iohw_verdict v;
    char line[1024], repro[16384];
    if (iohw_verdict_build(r, &v) != 0)
        return w->always ? -1 : 0;
    if (v.failures == 0 && !w->always) {
        iohw_verdict_free(&v);
        return 0;
    }
    iohw_verdict_headline(&v, line, sizeof line);
    const int n = w->max_rows > 0 && w->max_rows < v.count ? w->max_rows : v.count;

    w->head(f, &v, line);
    for (int pass = 0; pass < 2; pass++) {
        void (*each)(FILE *, const iohw__verdict_row *) = pass ? w->note : w->row;
        for (int k = 0; each != NULL && k < n; k++) {
            const iohw_verdict_group *g = &v.groups[k];
            const iohw_result *s = &r->items[g->smallest];
            iohw__repro(o, s, repro, sizeof repro);
            const iohw__verdict_row row = {k, g, s, repro};
            each(f, &row);
        }
        if (pass == 0)
            w->tail(f, &v);
    }
    iohw_verdict_free(&v);
    return 0;
}
