/*
 * reports/json_read.c - reading a JSON report (docs/REPORT_FORMAT.md) back
 * into an iohw_report, for `iohw report merge` and `iohw report diff`.
 *
 * The tree comes from reports/json_parse.c; this file checks every member
 * it uses for type, range and length (a string that does not fit its field
 * is an error, not a silent cut) and names the member in the message.
 * Strings are kept as the writer writes them (iohw__text_fit: bytes that
 * are not UTF-8 replaced), so that whatever iohw writes, it reads.  Each
 * case is decoded from its text by the result record's codec
 * (results/record.h), the one the journal uses.
 * Members it does not know are ignored, so later versions may add some.
 */
#include "reports/reports_internal.h"

#include "results/record.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define REPORT_SIZE_MAX ((size_t)1 << 30)

typedef struct reader {
    iohw_report *rep;
    const char *name;
    const char *text;  /* the whole input, which the tree's offsets index */
    char where[192];  /* "cases[3]" etc., for messages */
    iohw_error *err;
} reader;

static int bad(reader *rd, const iohw__json *v, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int bad(reader *rd, const iohw__json *v, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (v != NULL)
        return iohw_error_set(rd->err, "%s:%d:%d: %s%s%s", rd->name, v->line,
                              v->col, rd->where, rd->where[0] ? ": " : "", msg);
    return iohw_error_set(rd->err, "%s: %s%s%s", rd->name, rd->where,
                          rd->where[0] ? ": " : "", msg);
}

/* --- storage ------------------------------------------------------------- */

void *iohw__report_own(iohw_report *rep, void *p)
{
    if (p == NULL)
        return NULL;
    if (rep->nowned == rep->capowned) {
        int cap = rep->capowned == 0 ? 16 : rep->capowned * 2;
        void **n = realloc(rep->owned, (size_t)cap * sizeof *n);
        if (n == NULL) {
            free(p);
            return NULL;
        }
        rep->owned = n, rep->capowned = cap;
    }
    rep->owned[rep->nowned++] = p;
    return p;
}

static const char *own_string(reader *rd, const iohw__json *v)
{
    char *s = strdup(v->string);
    if (iohw__report_own(rd->rep, s) == NULL)
        return bad(rd, v, "out of memory"), NULL;
    return s;
}

/* --- typed members ------------------------------------------------------- */

/* Copies member key (a string) into buf; a missing or null member gives ""
 * unless required. */
static int get_text(reader *rd, const iohw__json *o, const char *key,
                    char *buf, size_t n, int required)
{
    const iohw__json *v = iohw__json_get(o, key);
    buf[0] = '\0';
    if (v == NULL || v->type == IOHW__JSON_NULL)
        return required ? bad(rd, o, "member '%s' missing", key) : 0;
    if (v->type != IOHW__JSON_STRING)
        return bad(rd, v, "member '%s': expected a string", key);
    /* As the writer gives it back (invalid UTF-8 replaced), so that what
     * is read here is written and read again unchanged. */
    if (iohw__text_fit(v->string, buf, n) != 0)
        return bad(rd, v, "member '%s': longer than %zu bytes", key, n - 1);
    return 0;
}

/* The same into *out, malloc'd to the size it needs (the caller frees
 * it, also on an error): no limit but the report's. */
static int get_text_dup(reader *rd, const iohw__json *o, const char *key,
                        char **out, int required)
{
    const iohw__json *v = iohw__json_get(o, key);
    free(*out);
    *out = NULL;
    if (v != NULL && v->type != IOHW__JSON_NULL && v->type != IOHW__JSON_STRING)
        return bad(rd, v, "member '%s': expected a string", key);
    if ((v == NULL || v->type == IOHW__JSON_NULL) && required)
        return bad(rd, o, "member '%s' missing", key);
    *out = iohw__text_dup(v != NULL && v->type == IOHW__JSON_STRING ? v->string : "");
    return *out == NULL ? bad(rd, o, "member '%s': out of memory", key) : 0;
}

static int get_int(reader *rd, const iohw__json *o, const char *key,
                   int64_t lo, int64_t hi, int64_t *out)
{
    const iohw__json *v = iohw__json_get(o, key);
    *out = 0;
    if (v == NULL || v->type == IOHW__JSON_NULL)
        return 0;
    if (v->type != IOHW__JSON_NUMBER || !v->is_int)
        return bad(rd, v, "member '%s': expected an integer", key);
    if (v->integer < lo || v->integer > hi)
        return bad(rd, v, "member '%s': %lld outside [%lld, %lld]", key,
                   (long long)v->integer, (long long)lo, (long long)hi);
    *out = v->integer;
    return 0;
}

/* A number, or "inf", "-inf", "nan"; null (or missing) gives dflt. */
static int get_double(reader *rd, const iohw__json *v, const char *key,
                      double dflt, double *out)
{
    *out = dflt;
    if (v == NULL || v->type == IOHW__JSON_NULL)
        return 0;
    if (v->type == IOHW__JSON_NUMBER) {
        *out = v->number;
        return 0;
    }
    if (v->type == IOHW__JSON_STRING) {
        if (strcmp(v->string, "inf") == 0)
            return *out = INFINITY, 0;
        if (strcmp(v->string, "-inf") == 0)
            return *out = -INFINITY, 0;
        if (strcmp(v->string, "nan") == 0)
            return *out = NAN, 0;
    }
    return bad(rd, v, "member '%s': expected a number", key);
}

static int get_member_double(reader *rd, const iohw__json *o, const char *key,
                             double dflt, double *out)
{
    return get_double(rd, iohw__json_get(o, key), key, dflt, out);
}

/* An array of strings, into storage the report owns. */
static int get_strings(reader *rd, const iohw__json *o, const char *key,
                       const char *const **out, int *n)
{
    const iohw__json *v = iohw__json_get(o, key);
    *out = NULL, *n = 0;
    if (v == NULL || v->type == IOHW__JSON_NULL)
        return 0;
    if (v->type != IOHW__JSON_ARRAY || v->n > 1000000)
        return bad(rd, v, "member '%s': expected an array of strings", key);
    if (v->n == 0)
        return 0;
    const char **a = iohw__report_own(rd->rep, calloc(v->n, sizeof *a));
    if (a == NULL)
        return bad(rd, v, "out of memory");
    for (size_t i = 0; i < v->n; i++) {
        if (v->items[i]->type != IOHW__JSON_STRING)
            return bad(rd, v->items[i], "member '%s'[%zu]: expected a string", key, i);
        if ((a[i] = own_string(rd, v->items[i])) == NULL)
            return -1;
    }
    *out = a, *n = (int)v->n;
    return 0;
}

/* --- sections ------------------------------------------------------------ */

static int read_run(reader *rd, const iohw__json *run)
{
    iohw_report *rep = rd->rep;
    iohw_report_options *o = &rep->options;
    char text[512];
    int64_t k;
    snprintf(rd->where, sizeof rd->where, "run");
    if (run == NULL || run->type == IOHW__JSON_NULL)
        return 0;
    if (run->type != IOHW__JSON_OBJECT)
        return bad(rd, run, "expected an object");
    const iohw__json *be = iohw__json_get(run, "backend");
    if (be != NULL && be->type != IOHW__JSON_OBJECT)
        return bad(rd, be, "member 'backend': expected an object");
    if (get_text_dup(rd, be, "name", &rep->results.backend_name, 0) != 0 ||
        get_text_dup(rd, be, "version", &rep->results.backend_version, 0) != 0 ||
        get_text(rd, be, "path", text, sizeof text, 0) != 0)
        return -1;
    if (text[0] != '\0' && (o->backend_path = iohw__report_own(rep, strdup(text))) == NULL)
        return bad(rd, be, "out of memory");
    const iohw__json *mc = iohw__json_get(run, "machine");
    if (mc != NULL && mc->type != IOHW__JSON_OBJECT && mc->type != IOHW__JSON_NULL)
        return bad(rd, mc, "member 'machine': expected an object");
    if (get_text(rd, mc, "cpu", rep->results.machine.cpu,
                 sizeof rep->results.machine.cpu, 0) != 0 ||
        get_text(rd, mc, "features", rep->results.machine.features,
                 sizeof rep->results.machine.features, 0) != 0 ||
        get_text(rd, mc, "cpuid_brand", rep->results.machine.cpuid_brand,
                 sizeof rep->results.machine.cpuid_brand, 0) != 0)
        return -1;
    if (get_strings(rd, run, "inputs", &o->inputs, &o->ninputs) != 0 ||
        get_strings(rd, run, "sources", &o->sources, &o->nsources) != 0)
        return -1;

    const iohw__json *op = iohw__json_get(run, "options");
    if (op != NULL && op->type != IOHW__JSON_OBJECT && op->type != IOHW__JSON_NULL)
        return bad(rd, op, "member 'options': expected an object");
    if (get_text(rd, op, "filter", text, sizeof text, 0) != 0)
        return -1;
    const iohw__json *fv = iohw__json_get(op, "filter");
    if (fv != NULL && fv->type == IOHW__JSON_STRING &&
        (o->filter = iohw__report_own(rep, strdup(text))) == NULL)
        return bad(rd, fv, "out of memory");
    if (get_text(rd, op, "shard", text, sizeof text, 0) != 0)
        return -1;
    if (text[0] != '\0' &&
        (sscanf(text, "%d/%d", &o->shard_index, &o->shard_count) != 2 ||
         o->shard_count < 1 || o->shard_index < 1 || o->shard_index > o->shard_count))
        return bad(rd, iohw__json_get(op, "shard"), "member 'shard': expected \"I/N\"");
    if (get_int(rd, op, "jobs", 0, 1000000, &k) != 0 ||
        get_member_double(rd, op, "timeout", 0, &o->timeout) != 0)
        return -1;
    o->jobs = (int)k;

    if (get_text(rd, run, "start_time", text, sizeof text, 0) != 0)
        return -1;
    if (text[0] != '\0' && iohw__iso_time_parse(text, &o->start_time) != 0)
        return bad(rd, iohw__json_get(run, "start_time"),
                   "member 'start_time': expected YYYY-MM-DDTHH:MM:SSZ");
    if (get_member_double(rd, run, "seconds", 0, &rep->results.seconds) != 0 ||
        get_int(rd, run, "resumed", 0, INT64_MAX, &rep->results.resumed) != 0)
        return -1;
    return 0;
}

static int read_baseline(reader *rd, const iohw__json *b)
{
    iohw_baseline *bl = &rd->rep->baseline;
    snprintf(rd->where, sizeof rd->where, "baseline");
    if (b == NULL || b->type == IOHW__JSON_NULL)
        return 0;
    if (b->type != IOHW__JSON_OBJECT)
        return bad(rd, b, "expected an object or null");
    if (get_text_dup(rd, b, "file", &bl->path, 0) != 0)
        return -1;
    const iohw__json *es = iohw__json_get(b, "entries");
    if (es == NULL || es->type != IOHW__JSON_ARRAY || es->n > 10000000)
        return bad(rd, es != NULL ? es : b, "member 'entries': expected an array");
    if (es->n > 0 && (bl->entries = calloc(es->n, sizeof *bl->entries)) == NULL)
        return bad(rd, es, "out of memory");
    for (size_t i = 0; i < es->n; i++) {
        const iohw__json *e = es->items[i];
        iohw_baseline_entry *be = &bl->entries[i];
        int64_t line;
        snprintf(rd->where, sizeof rd->where, "baseline.entries[%zu]", i);
        if (e->type != IOHW__JSON_OBJECT)
            return bad(rd, e, "expected an object");
        bl->count++;   /* its strings are freed with the baseline */
        if (get_text_dup(rd, e, "pattern", &be->pattern, 1) != 0 ||
            get_text_dup(rd, e, "reason", &be->reason, 0) != 0 ||
            get_text_dup(rd, e, "condition", &be->condition, 0) != 0 ||
            get_int(rd, e, "line", 0, INT32_MAX, &line) != 0 ||
            get_int(rd, e, "matched", 0, INT64_MAX, &be->matched) != 0)
            return -1;
        be->line = (int)line;
        const iohw__json *ap = iohw__json_get(e, "applies");
        if (ap != NULL && ap->type != IOHW__JSON_BOOL && ap->type != IOHW__JSON_NULL)
            return bad(rd, ap, "member 'applies': expected true or false");
        be->inapplicable = ap != NULL && ap->type == IOHW__JSON_BOOL && !ap->boolean;
    }
    rd->rep->options.baseline = bl;
    return 0;
}

/* A case: the result record (results/record.h's decoder checks every member
 * of it), then the members the report adds. */
static int read_case(reader *rd, const iohw__json *c, int64_t i)
{
    iohw_result *r = &rd->rep->results.items[i];
    iohw_error e = {{0}};
    snprintf(rd->where, sizeof rd->where, "cases[%lld]", (long long)i);
    if (c->type != IOHW__JSON_OBJECT)
        return bad(rd, c, "expected an object");
    if (iohw_record_decode(rd->text + c->start, c->end - c->start, r, &e) != 0)
        return bad(rd, c, "%s", e.msg);
    snprintf(rd->where, sizeof rd->where, "cases[%lld] (id '%.100s')", (long long)i,
             r->case_id);
    return get_member_double(rd, c, "wall", 0, &rd->rep->results.wall[i]);
}

static int read_report(reader *rd, const iohw__json *root)
{
    iohw_report *rep = rd->rep;
    int64_t version;
    char text[64];
    if (root->type != IOHW__JSON_OBJECT)
        return bad(rd, root, "not a JSON object");
    const iohw__json *vv = iohw__json_get(root, "iohw_report_version");
    if (vv == NULL)
        return bad(rd, root, "no 'iohw_report_version': not an iohw report");
    if (get_int(rd, root, "iohw_report_version", 1, INT32_MAX, &version) != 0)
        return -1;
    if (version > IOHW_REPORT_VERSION)
        return bad(rd, vv, "report version %lld is newer than this iohw reads (%d)",
                   (long long)version, IOHW_REPORT_VERSION);
    rep->version = (int)version;
    if (get_text(rd, root, "iohw_version", text, sizeof text, 0) != 0)
        return -1;
    if (text[0] != '\0' && (rep->options.iohw_version = iohw__report_own(rep, strdup(text))) == NULL)
        return bad(rd, root, "out of memory");
    if (read_run(rd, iohw__json_get(root, "run")) != 0 ||
        read_baseline(rd, iohw__json_get(root, "baseline")) != 0)
        return -1;

    rd->where[0] = '\0';
    const iohw__json *cs = iohw__json_get(root, "cases");
    if (cs == NULL || cs->type != IOHW__JSON_ARRAY)
        return bad(rd, cs != NULL ? cs : root, "member 'cases': expected an array");
    if (cs->n == 0)
        return 0;
    rep->results.items = calloc(cs->n, sizeof *rep->results.items);
    rep->results.wall = calloc(cs->n, sizeof *rep->results.wall);
    if (rep->results.items == NULL || rep->results.wall == NULL)
        return bad(rd, cs, "out of memory for %zu cases", cs->n);
    for (size_t i = 0; i < cs->n; i++) {
        if (read_case(rd, cs->items[i], (int64_t)i) != 0)
            return -1;
        rep->results.count = (int64_t)i + 1;
    }
    return 0;
}

/* --- entry points -------------------------------------------------------- */

int iohw_report_parse(const char *text, size_t len, const char *name,
                      iohw_report *rep, iohw_error *err)
{
    reader rd = {0};
    memset(rep, 0, sizeof *rep);
    rd.rep = rep;
    rd.name = name != NULL ? name : "report";
    rd.text = text;
    rd.err = err;
    iohw__json_doc *doc = iohw__json_parse(text, len, rd.name, err);
    if (doc == NULL)
        return -1;
    int rc = read_report(&rd, iohw__json_root(doc));
    iohw__json_free(doc);
    if (rc != 0)
        iohw_report_free(rep);
    return rc;
}

int iohw_report_read(const char *path, iohw_report *rep, iohw_error *err)
{
    size_t len;
    memset(rep, 0, sizeof *rep);
    char *text = iohw__read_file(path, REPORT_SIZE_MAX, &len, err);
    if (text == NULL)
        return -1;
    int rc = iohw_report_parse(text, len, path, rep, err);
    free(text);
    return rc;
}

void iohw_report_free(iohw_report *rep)
{
    if (rep == NULL)
        return;
    free(rep->results.items);
    free(rep->results.wall);
    free(rep->results.backend_name);
    free(rep->results.backend_version);
    iohw_baseline_free(&rep->baseline);
    for (int i = 0; i < rep->nowned; i++)
        free(rep->owned[i]);
    free(rep->owned);
    memset(rep, 0, sizeof *rep);
}
