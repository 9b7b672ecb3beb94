/*
 * harness/console.c - progress, failure blocks and the summary tables of
 * `iohw run` (see console.h and run.h).
 */
#include "harness/console.h"
#include "harness/console_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness/run.h"
#include "results/speed.h"
#include "judge/verdict.h"
#include "sandbox/worker.h"
#include "oracle/clock.h"

#define BAR_WIDTH 24
#define BAR_PERIOD_NS 100000000LL        /* at most 10 redraws a second */
/* A plain line (stderr not a terminal: a log, a CI job) every minute, so
 * that a long run shows it is alive, and one at the end: a run shorter
 * than a minute writes one line. */
#define LINE_PERIOD_NS 60000000000LL

/* "1h02m", "3m05s", "12s". */
static void format_duration(double s, char *buf, size_t n)
{
    if (s < 0)
        s = 0;
    long t = (long)(s + 0.5);
    if (t >= 3600)
        snprintf(buf, n, "%ldh%02ldm", t / 3600, t / 60 % 60);
    else if (t >= 60)
        snprintf(buf, n, "%ldm%02lds", t / 60, t % 60);
    else
        snprintf(buf, n, "%lds", t);
}

/* "PASS 12 FAIL 1 ..." for the statuses seen so far (sep between them). */
static void format_counts(const iohw_console *c, const char *sep, char *buf,
                          size_t n)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int s = 0; s < IOHW_RESULT_STATUS_COUNT; s++) {
        if (c->counts[s] == 0 || len >= n)
            continue;
        int k = snprintf(buf + len, n - len, "%s%s %lld", len ? sep : "",
                         iohw_result_status_name((iohw_result_status)s),
                         (long long)c->counts[s]);
        if (k < 0)
            break;
        len += (size_t)k;
    }
}

static void format_eta(const iohw_console *c, int64_t now, char *buf, size_t n)
{
    double elapsed = (double)(now - c->t0_ns) * 1e-9;
    int64_t left = c->total - c->done;
    if (left <= 0) {
        snprintf(buf, n, "done");
    } else if (c->fresh == 0) {
        snprintf(buf, n, "ETA ?");
    } else {
        char d[32];
        format_duration(elapsed / (double)c->fresh * (double)left, d, sizeof d);
        snprintf(buf, n, "ETA %s", d);
    }
}

static void draw_bar(iohw_console *c, int64_t now)
{
    char bar[BAR_WIDTH + 1], counts[256], eta[48], el[32];
    int filled = c->total > 0 ? (int)(c->done * BAR_WIDTH / c->total) : BAR_WIDTH;
    for (int i = 0; i < BAR_WIDTH; i++)
        bar[i] = i < filled ? '#' : '.';
    bar[BAR_WIDTH] = '\0';
    format_counts(c, " ", counts, sizeof counts);
    format_eta(c, now, eta, sizeof eta);
    format_duration((double)(now - c->t0_ns) * 1e-9, el, sizeof el);
    fprintf(c->prog, "\r[%s] %lld/%lld %s  %s %s\033[K", bar,
            (long long)c->done, (long long)c->total, counts, el, eta);
    fflush(c->prog);
    c->bar_shown = 1;
    c->last_ns = now;
}

static void print_line(iohw_console *c, int64_t now)
{
    char counts[256], eta[48], el[32];
    format_counts(c, ", ", counts, sizeof counts);
    format_eta(c, now, eta, sizeof eta);
    format_duration((double)(now - c->t0_ns) * 1e-9, el, sizeof el);
    int pct = c->total > 0 ? (int)(c->done * 100 / c->total) : 100;
    fprintf(c->prog, "iohw: run: %lld/%lld cases (%d%%)%s%s; %s elapsed, %s\n",
            (long long)c->done, (long long)c->total, pct, counts[0] ? ": " : "",
            counts, el, eta);
    fflush(c->prog);
    c->last_line_ns = now;
    c->last_line_done = c->done;
}

static void erase_bar(iohw_console *c)
{
    if (c->bar_shown) {
        fputs("\r\033[K", c->prog);
        fflush(c->prog);
        c->bar_shown = 0;
    }
}

void iohw_console_start(iohw_console *c, int mode, int blocks,
                        const char *backend, int64_t total, FILE *prog,
                        FILE *out)
{
    memset(c, 0, sizeof *c);
    c->mode = mode;
    c->blocks = blocks;
    c->backend = backend;
    c->total = total;
    c->prog = prog;
    c->out = out;
    c->t0_ns = iohw_clock_ns();
    c->last_line_ns = c->t0_ns;
    c->show = IOHW_RUN_SHOW;
}

/* 1 when r's block is to be printed: the first of its group, or one of the
 * `show` blocks beyond the first ones (counted here). */

/* The case in the other tools' terms (specification section 14): the
 * command that prints it, FILE:CASE quoted for the shell. */
static void print_as_line(FILE *out, const iohw_result *r)
{
    fputs("  in other tools: iohw show --as FORMAT '", out);
    for (const char *c = r->file; *c != '\0'; c++)
        fputs(*c == '\'' ? "'\\''" : (char[]){*c, '\0'}, out);
    fprintf(out, ":%s' (FORMAT: benchdnn, torch, or onnx -o DIR)\n", r->case_id);
}

static int block_wanted(iohw_console *c, const iohw_result *r)
{
    char label[sizeof c->groups[0]];
    iohw_verdict_key(r, label, sizeof label);
    for (int k = 0; k < c->ngroups; k++)
        if (strcmp(c->groups[k], label) == 0) {
            if (c->show >= 0 && c->extra >= c->show)
                return 0;
            c->extra++;
            return 1;
        }
    if (c->ngroups == c->groups_cap) {
        int ncap = c->groups_cap ? 2 * c->groups_cap : 8;
        char (*g)[600] = realloc(c->groups, (size_t)ncap * sizeof *g);
        if (g == NULL)
            return 1;       /* out of memory: print rather than lose it */
        c->groups = g;
        c->groups_cap = ncap;
    }
    memcpy(c->groups[c->ngroups++], label, sizeof label);
    return 1;
}

void iohw_console_tick(iohw_console *c)
{
    int64_t now = iohw_clock_ns();
    if (c->mode == IOHW_PROGRESS_BAR) {
        if (now - c->last_ns >= BAR_PERIOD_NS || c->done == c->total)
            draw_bar(c, now);
    } else if (c->mode == IOHW_PROGRESS_LINES) {
        if (c->done > c->last_line_done && c->done < c->total &&
            now - c->last_line_ns >= LINE_PERIOD_NS)
            print_line(c, now);
    }
}

void iohw_console_add(iohw_console *c, const iohw_result *r, int fresh)
{
    if ((int)r->status >= 0 && r->status < IOHW_RESULT_STATUS_COUNT)
        c->counts[r->status]++;
    c->done++;
    c->fresh += fresh != 0;
    if (c->blocks && iohw_result_status_bad(r->status) && !block_wanted(c, r)) {
        c->held++;
    } else if (c->blocks && iohw_result_status_bad(r->status)) {
        erase_bar(c);
        if (c->repro != NULL)
            iohw_console_block_repro(c->out, c->repro, r);
        else
            iohw_console_block(c->out, c->backend, r);
        fflush(c->out);
        c->last_ns = 0;     /* redraw the bar at once */
    }
    if (fresh)
        iohw_console_tick(c);
}

void iohw_console_finish(iohw_console *c)
{
    if (c->mode == IOHW_PROGRESS_BAR) {
        erase_bar(c);
    } else if (c->mode == IOHW_PROGRESS_LINES && c->done > c->last_line_done) {
        print_line(c, iohw_clock_ns());
    }
    if (c->held > 0) {
        fprintf(c->out, "\n(%lld more failure block(s) not shown: --show %d "
                "prints the first of each group and %d more; the reports "
                "written with --json, --html, --markdown or --junit keep every "
                "one; --show -1 prints them all)\n", (long long)c->held, c->show,
                c->show);
        fflush(c->out);
    }
    free(c->groups);
    c->groups = NULL;
    c->ngroups = c->groups_cap = 0;
}

/* --- one bad result ------------------------------------------------------ */

void iohw_console_block(FILE *out, const char *backend, const iohw_result *r)
{
    iohw_repro_options o;
    iohw_repro_options_backend(backend, &o);
    iohw_console_block_repro(out, &o, r);
}

void iohw_console_block_repro(FILE *out, const iohw_repro_options *o,
                              const iohw_result *r)
{
    char repro[16384];
    fprintf(out, "\n%s ", iohw_result_status_name(r->status));
    /* A backward case's direction before it (specification section 13). */
    if (r->direction[0] != '\0')
        fprintf(out, "%s ", r->direction);
    if (r->case_id[0] != '\0')
        fprintf(out, "%s (%s)\n", r->case_id, r->file);
    else
        fprintf(out, "file %s\n", r->file);
    if (r->descriptor[0] != '\0')
        fprintf(out, "  problem:   %s\n", r->descriptor);
    if (r->tags[0] != '\0')
        fprintf(out, "  tags:      %s\n", r->tags);
    if (r->message[0] != '\0')
        fprintf(out, "  message:   %s\n", r->message);
    if (r->diagnosis[0] != '\0')
        fprintf(out, "  diagnosis: %s\n", r->diagnosis);
    iohw__console_points(out, r);
    if (iohw_repro_format(o, r, repro, (int)sizeof repro) >= 0)
        fprintf(out, "  __REPRO: %s\n", repro);
    if (r->case_id[0] != '\0')
        print_as_line(out, r);
}

/* --- the summary --------------------------------------------------------- */

typedef struct tag_row {
    const char *name;   /* a kept text (results/text.h) */
    int64_t pass, fail, other;
} tag_row;

static int cmp_tag(const void *a, const void *b)
{
    return strcmp(((const tag_row *)a)->name, ((const tag_row *)b)->name);
}

/* Adds one result to the row of each of its tags; returns the row count
 * (rows may grow) or -1 when memory runs out. */
static int count_tags(const iohw_result *r, tag_row **rows, int n, int *cap)
{
    const char *s = r->tags;
    size_t len = strlen(s);
    size_t i = 0;
    while (i < len) {
        size_t j = i;
        while (j < len && s[j] != ',')
            j++;
        if (j > i) {
            const char *name = iohw_text_keep_n(s + i, j - i);
            int k = 0;
            while (k < n && strcmp((*rows)[k].name, name) != 0)
                k++;
            if (k == n) {
                if (n == *cap) {
                    int ncap = *cap ? 2 * *cap : 32;
                    tag_row *v = realloc(*rows, (size_t)ncap * sizeof *v);
                    if (v == NULL)
                        return -1;
                    *rows = v;
                    *cap = ncap;
                }
                memset(&(*rows)[n], 0, sizeof **rows);
                (*rows)[n].name = name;
                n++;
            }
            if (r->status == IOHW_RESULT_PASS)
                (*rows)[k].pass++;
            else if (iohw_result_status_bad(r->status))
                (*rows)[k].fail++;
            else
                (*rows)[k].other++;
        }
        i = j + 1;
    }
    return n;
}

/* How many cases passed only under a declared subnormal flush or a
 * declared rounding, and the first of each. */
static void print_noted(const iohw_run_results *r, FILE *out)
{
    int (*const noted[2])(const iohw_result *) = {iohw_result_flushed, iohw_result_rounded};
    static const char *const note[2] = {IOHW_RESULT_NOTE_FLUSHED,
                                        IOHW_RESULT_NOTE_ROUNDING " (--rounding)"};
    for (int k = 0; k < 2; k++) {
        int64_t n = 0, first = -1;
        for (int64_t i = 0; i < r->count; i++)
            if (noted[k](&r->items[i])) {
                first = first < 0 ? i : first;
                n++;
            }
        if (n > 0)
            fprintf(out, "\nPASS with a note: %lld case(s) with %s (first: %s)\n",
                    (long long)n, note[k], r->items[first].case_id);
        if (n > 0 && k == 1) /* how it rounds, in the first one's words */
            fprintf(out, "  %s\n", r->items[first].message);
    }
}

/* 1 when some result is bad. */
static int any_bad(const iohw_run_results *r)
{
    for (int64_t i = 0; i < r->count; i++)
        if (iohw_result_status_bad(r->items[i].status))
            return 1;
    return 0;
}

/* What to do about a narrow run: when more than half of the cases are
 * UNSUPPORTED, or --claim-coverage found the claimed cases covering less
 * than COVERAGE_LOW_PERCENT of the pairs the backend claims, the suite
 * mostly tests what the backend does not do; `gen --for-backend` writes
 * one inside its claim (every claimed pair covered). */
#define COVERAGE_LOW_PERCENT 90
static void print_advice(const iohw_run_results *r, const int64_t *counts,
                         FILE *out)
{
    const int64_t unsupported = counts[IOHW_RESULT_UNSUPPORTED];
    const int narrow = r->count > 0 && 2 * unsupported > r->count;
    const int low = r->claim_known && r->claim_pairs > 0 &&
                    100 * r->claim_covered < COVERAGE_LOW_PERCENT * r->claim_pairs;
    if (!narrow && !low)
        return;
    fprintf(out, "your backend claims %lld of %lld case(s) (%lld UNSUPPORTED)",
            (long long)(r->count - unsupported), (long long)r->count,
            (long long)unsupported);
    if (low)
        fprintf(out, " and they cover %.1f%% of the factor-value pairs it claims",
                100.0 * (double)r->claim_covered / (double)r->claim_pairs);
    fprintf(out, ": `iohw gen --profile smoke --for-backend %s -o DIR` writes a "
            "suite inside what it claims\n", r->repro.backend != NULL
            ? r->repro.backend : "LIB");
}

/* The last lines: how many cases were compared (and, for a narrow run,
 * what to do about it), and the verdict, loud when nothing was tested
 * ("nothing was tested: 195 of 195 UNSUPPORTED"); a failed run repeats
 * the headline of the groups above. */
static void print_verdict(const iohw_run_results *r, const int64_t *counts,
                          const char *headline, FILE *out)
{
    int64_t compared = iohw_run_compared(r);
    fprintf(out, "\ncompared with the oracle: %lld of %lld case(s)\n",
            (long long)compared, (long long)r->count);
    print_advice(r, counts, out);
    if (any_bad(r)) {
        fprintf(out, "FAILED: %s (cases FAIL, ERROR, CRASH, TIMEOUT or INVALID)\n",
                headline);
        return;
    }
    if (compared > 0) {
        fputs("OK: nothing failed\n", out);
        return;
    }
    fprintf(out, "%s: nothing was tested: ", r->allow_empty
            ? "OK (--allow-empty)" : "FAILED");
    if (r->count == 0)
        fputs("no case selected", out);
    for (int s = 0, first = 1; s < IOHW_RESULT_STATUS_COUNT; s++) {
        if (counts[s] == 0)
            continue;
        fprintf(out, "%s%lld of %lld %s", first ? "" : ", ",
                (long long)counts[s], (long long)r->count,
                iohw_result_status_name((iohw_result_status)s));
        first = 0;
    }
    fputc('\n', out);
}

/* The failures grouped by diagnosis, and their headline into headline. */
static void print_groups(const iohw_run_results *r, char *headline, size_t n,
                         FILE *out)
{
    iohw_verdict v;
    if (iohw_verdict_build(r, &v) != 0) {
        fputs("\n(the verdict by group is left out: out of memory)\n", out);
        snprintf(headline, n, "some cases failed");
        return;
    }
    iohw_verdict_headline(&v, headline, n);
    if (v.failures > 0)
        iohw_verdict_print(&v, r, &r->repro, out);
    iohw_verdict_free(&v);
}

/* The table by tag: every tag with --tags; otherwise, on a failed run that
 * is not --quiet, the tags with a result other than PASS. */
static void print_tags(const iohw_run_results *r, FILE *out)
{
    if (!r->all_tags && (r->quiet || !any_bad(r)))
        return;
    tag_row *rows = NULL;
    int n = 0, cap = 0;
    for (int64_t i = 0; i < r->count && n >= 0; i++)
        n = count_tags(&r->items[i], &rows, n, &cap);
    if (n < 0)
        fprintf(out, "\n(the table by tag is left out: out of memory)\n");
    if (n > 0) {
        qsort(rows, (size_t)n, sizeof *rows, cmp_tag);
        fprintf(out, "\n%-24s %8s %8s %8s\n", "tag", "pass", "fail", "other");
        for (int k = 0; k < n; k++)
            if (r->all_tags || rows[k].fail + rows[k].other > 0)
                fprintf(out, "%-24s %8lld %8lld %8lld\n", rows[k].name,
                        (long long)rows[k].pass, (long long)rows[k].fail,
                        (long long)rows[k].other);
    }
    free(rows);
}

/* The order puts the verdict last: the failure blocks came while the run
 * went; then what ran and the table by status, the table by tag, notes
 * and speed; then the groups of failures and the closing lines (compared
 * count, advice, OK or FAILED with the headline).  The end of the output
 * is what a terminal shows and what `tail` and CI logs keep, so the
 * verdict is always within the last lines, however many blocks came
 * before (tests/test_run_summary.c). */
void iohw_run_summary(const iohw_run_results *r, FILE *out)
{
    int64_t counts[IOHW_RESULT_STATUS_COUNT] = {0};
    for (int64_t i = 0; i < r->count; i++)
        if ((int)r->items[i].status >= 0 &&
            r->items[i].status < IOHW_RESULT_STATUS_COUNT)
            counts[r->items[i].status]++;

    char machine[512], headline[1024];
    fprintf(out, "\nbackend: %s (%s)\nmachine: %s\n%lld case(s) in %.1f s",
            r->backend_name != NULL ? r->backend_name : "",
            r->backend_version != NULL ? r->backend_version : "",
            iohw_machine_describe(&r->machine, machine, sizeof machine),
            (long long)r->count, r->seconds);
    if (r->resumed > 0)
        fprintf(out, " (%lld taken from the journal)", (long long)r->resumed);
    fprintf(out, "\n\n%-12s %8s\n", "status", "cases");
    for (int s = 0; s < IOHW_RESULT_STATUS_COUNT; s++)
        fprintf(out, "%-12s %8lld\n", iohw_result_status_name((iohw_result_status)s),
                (long long)counts[s]);
    fprintf(out, "%-12s %8lld\n", "total", (long long)r->count);
    print_tags(r, out);
    char claim[256];
    if (iohw_run_claim_sentence(r, claim, sizeof claim) == 0)
        fprintf(out, "\nclaimed-pair coverage: %s\n", claim);
    print_noted(r, out);
    iohw_speed speed;
    if (iohw_speed_build(r, &speed) == 0) {
        iohw_speed_print(&speed, r, out);
        iohw_speed_free(&speed);
    }
    print_groups(r, headline, sizeof headline, out);
    print_verdict(r, counts, headline, out);
}
