/*
 * explore/shrink_write.c - writing and printing what `iohw shrink` found
 * (shrink.h).
 */
#include "explore/shrink.h"

#include <string.h>

#include "results/result.h"

int iohw_shrink_write(const char *path, const iohw_case *const *cases, int n,
                      iohw_error *err)
{
    iohw_case_file *f = iohw_case_file_create(path, err);
    if (f == NULL)
        return -1;
    for (int i = 0; i < n; i++) {
        if (iohw_case_file_write(f, cases[i], err) != 0) {
            iohw_case_file_abandon(f);
            return -1;
        }
    }
    return iohw_case_file_close(f, err);
}

/* A status and its diagnosis or message, on one line. */
static void print_outcome(const char *label, const iohw_result *r, FILE *f)
{
    const char *why = r->diagnosis[0] != '\0' ? r->diagnosis : r->message;
    fprintf(f, "  %-9s %s%s%s\n", label, iohw_result_status_name(r->status),
            why[0] != '\0' ? ", " : "", why);
}

void iohw_shrink_print(const iohw_shrink_result *r,
                       const iohw_shrink_options *o, const char *written,
                       FILE *f)
{
    char repro[8192];
    iohw_repro_options ro;
    iohw_result where = r->minimal;

    fprintf(f, "shrunk case '%s' of %s\n", r->original.case_id,
            r->original.file);
    fprintf(f, "  from      %s\n", r->original.descriptor);
    print_outcome("was", &r->original, f);
    fprintf(f, "  to        %s\n", r->minimal_case.descriptor);
    print_outcome("is", &r->minimal, f);
    fprintf(f, "  steps     %d kept, %d backend runs, %.2f s%s\n", r->steps,
            r->calls, r->seconds,
            r->budget_hit ? " (stopped by the bound on backend runs)" : "");
    if (written == NULL)
        return;
    fprintf(f, "  written   %s (case '%s')\n", written, r->minimal_case.id);
    iohw_repro_options_backend(o->backend, &ro);
    ro.adapt_layout = o->adapt_layout;
    ro.timeout_fixed = o->timeout > 0;
    ro.timeout = o->timeout;
    ro.memory_limit_mb = o->memory_limit_mb;
    where.file = iohw_text_keep(written);
    where.case_id = iohw_text_keep(r->minimal_case.id);
    if (iohw_repro_format(&ro, &where, repro, (int)sizeof repro) > 0)
        fprintf(f, "__REPRO: %s\n", repro);
}
