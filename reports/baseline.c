/*
 * reports/baseline.c - known failures (`iohw run --baseline F`).
 *
 * A baseline file has one entry per line:
 *
 *     # comment
 *     ct2d.grouped.0007     io-swap in our grouped kernel, ticket 123
 *     ct3d.f16.*            f16 3-D accumulates in f16, fixed in 2.1
 *
 * The first word is a case id or an fnmatch glob, the rest of the line the
 * reason (required: each waiver says why).  Matching bad results become
 * WAIVED; entries that waive nothing are stale and reported, so the file
 * shrinks as bugs get fixed.  Words between the pattern and the reason may
 * condition an entry on the machine or the library:
 *
 *     ct3d.pairwise.bf16.0011  cpu=avx512_bf16  flushes subnormals (oneDNN 2.6)
 *     ct1d.*.bf16.*  cpu=avx512bw version~1.13.  bf16 sent to forward conv
 *
 * `cpu=F` holds when the machine has feature F (results/machine.h names),
 * `cpu!=F` when it lacks it, `version~T` when the backend's version string
 * contains T, `version!~T` when it does not (an adapter may name there what
 * its library picked, as the oneDNN one names its effective ISA:
 * `version!~vnni`).  An entry whose conditions do not all hold is neither
 * applied nor stale.
 */
#include "reports/reports_internal.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "results/machine.h"

#define BASELINE_SIZE_MAX ((size_t)16 << 20)

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

/* The condition forms: key and whether its value is a CPU feature. */
static const struct {
    const char *key;
    int feature;
} CONDITIONS[] = {
    {"cpu=", 1}, {"cpu!=", 1}, {"version~", 0}, {"version!~", 0},
};
#define NCONDITIONS (sizeof CONDITIONS / sizeof CONDITIONS[0])

/* The condition form word (n bytes) starts with; -1 for none. */
static int condition_kind(const char *word, size_t n)
{
    for (size_t k = 0; k < NCONDITIONS; k++) {
        size_t len = strlen(CONDITIONS[k].key);
        if (n >= len && strncmp(word, CONDITIONS[k].key, len) == 0)
            return (int)k;
    }
    return -1;
}

/* 1 when the word looks like a condition with a wrong operator
 * ("version=2.6", "cpu~avx2"): `cpu` or `version`, then = ! or ~. */
static int condition_like(const char *word, size_t n)
{
    size_t key = n > 3 && strncmp(word, "cpu", 3) == 0       ? 3
                 : n > 7 && strncmp(word, "version", 7) == 0 ? 7
                                                             : 0;
    return key > 0 && strchr("=!~", word[key]) != NULL;
}

/* The length of the condition word at s (len bytes left), one of
 * CONDITIONS; 0 when s starts no condition, -1 (err set) for a malformed
 * one. */
static int condition_word(const char *s, size_t len, const char *name, int line,
                          iohw_error *err)
{
    size_t n = 0;
    while (n < len && !is_space(s[n]))
        n++;
    int kind = condition_kind(s, n);
    if (kind < 0 && condition_like(s, n))
        return iohw_error_set(err, "%s:%d: condition '%.*s' is not one of cpu=FEATURE, "
                              "cpu!=FEATURE, version~TEXT, version!~TEXT", name, line,
                              (int)(n < 80 ? n : 80), s);
    if (kind < 0)
        return 0;
    size_t key = strlen(CONDITIONS[kind].key);
    if (n == key)
        return iohw_error_set(err, "%s:%d: condition '%.*s' needs a value", name,
                              line, (int)n, s);
    if (CONDITIONS[kind].feature) {
        char feature[64], known[256];
        if (n - key >= sizeof feature)   /* longer than any feature's name */
            return iohw_error_set(err, "%s:%d: unknown CPU feature '%.*s'", name,
                                  line, (int)(n - key), s + key);
        snprintf(feature, sizeof feature, "%.*s", (int)(n - key), s + key);
        if (!iohw_machine_feature_known(feature))
            return iohw_error_set(err, "%s:%d: unknown CPU feature '%s' (known: %s)",
                                  name, line, feature,
                                  iohw_machine_feature_names(known, sizeof known));
    }
    return (int)n;
}

/* Copies the condition words at s[*i] on into e->condition (malloc'd,
 * one space between words); 0 or -1. */
static int parse_conditions(const char *s, size_t len, size_t *i, const char *name,
                            int line, iohw_baseline_entry *e, iohw_error *err)
{
    size_t used = 0;
    e->condition = malloc(len - *i + 1);
    if (e->condition == NULL)
        return iohw_error_set(err, "%s:%d: out of memory", name, line);
    e->condition[0] = '\0';
    for (;;) {
        int n = condition_word(s + *i, len - *i, name, line, err);
        if (n <= 0)
            return n;
        if (used > 0)
            e->condition[used++] = ' ';
        memcpy(e->condition + used, s + *i, (size_t)n);
        used += (size_t)n;
        e->condition[used] = '\0';
        *i += (size_t)n;
        while (*i < len && is_space(s[*i]))
            (*i)++;
    }
}

/* n bytes of s as a malloc'd string, or NULL. */
static char *dup_n(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (d != NULL) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

/* Parses one line (not NUL-terminated: len bytes) into e; 1 for an entry,
 * 0 for a blank or comment line, -1 on an error. */
static int parse_line(const char *s, size_t len, const char *name, int line,
                      iohw_baseline_entry *e, iohw_error *err)
{
    size_t i = 0;
    while (i < len && is_space(s[i]))
        i++;
    if (i == len || s[i] == '#')
        return 0;
    size_t p0 = i;
    while (i < len && !is_space(s[i]))
        i++;
    size_t plen = i - p0;
    while (i < len && is_space(s[i]))
        i++;
    memset(e, 0, sizeof *e);
    if (parse_conditions(s, len, &i, name, line, e, err) != 0)
        return iohw_baseline_entry_free(e), -1;
    size_t end = len;
    while (end > i && is_space(s[end - 1]))
        end--;
    int rc = 1;
    if (i == end)
        rc = iohw_error_set(err, "%s:%d: entry '%.*s' has no reason (write "
                            "'PATTERN  why it fails')", name, line, (int)plen, s + p0);
    for (size_t k = p0; rc == 1 && k < end; k++)
        if ((unsigned char)s[k] < 0x20 && s[k] != '\t')
            rc = iohw_error_set(err, "%s:%d: control character 0x%02x", name, line,
                                (unsigned char)s[k]);
    if (rc == 1 && ((e->pattern = dup_n(s + p0, plen)) == NULL ||
                    (e->reason = dup_n(s + i, end - i)) == NULL))
        rc = iohw_error_set(err, "%s:%d: out of memory", name, line);
    if (rc != 1)
        iohw_baseline_entry_free(e);
    e->line = line;
    return rc;
}

int iohw_baseline_parse(const char *text, const char *name, iohw_baseline *b,
                        iohw_error *err)
{
    memset(b, 0, sizeof *b);
    if (name == NULL)
        name = "baseline";
    if ((b->path = strdup(name)) == NULL)
        return iohw_error_set(err, "%s: out of memory", name);
    if (text == NULL) {
        iohw_baseline_free(b);
        return iohw_error_set(err, "%s: no text", name);
    }
    int cap = 0, line = 0;
    for (const char *s = text; *s != '\0' || line == 0;) {
        const char *nl = strchr(s, '\n');
        size_t len = nl != NULL ? (size_t)(nl - s) : strlen(s);
        iohw_baseline_entry e;
        line++;
        int rc = parse_line(s, len, name, line, &e, err);
        if (rc < 0) {
            iohw_baseline_free(b);
            return -1;
        }
        if (rc == 1) {
            if (b->count == cap) {
                cap = cap == 0 ? 16 : cap * 2;
                iohw_baseline_entry *n = realloc(b->entries, (size_t)cap * sizeof *n);
                if (n == NULL) {
                    iohw_baseline_entry_free(&e);
                    iohw_baseline_free(b);
                    return iohw_error_set(err, "%s: out of memory", name);
                }
                b->entries = n;
            }
            b->entries[b->count++] = e;
        }
        if (nl == NULL)
            break;
        s = nl + 1;
    }
    return 0;
}

int iohw_baseline_load(const char *path, iohw_baseline *b, iohw_error *err)
{
    size_t len;
    memset(b, 0, sizeof *b);
    char *text = iohw__read_file(path, BASELINE_SIZE_MAX * 64, &len, err);
    if (text == NULL)
        return iohw_error_prefix(err, "baseline");
    if (strlen(text) != len) {
        free(text);
        return iohw_error_set(err, "baseline %s: NUL byte in the file", path);
    }
    /* A JSON report stands for its failures. */
    const char *first = text + strspn(text, " \t\r\n");
    int rc;
    if (first[0] == '{') {
        iohw_report rep;
        rc = iohw_report_parse(text, len, path, &rep, err);
        if (rc == 0) {
            rc = iohw_baseline_from_report(&rep, path, b, err);
            iohw_report_free(&rep);
        }
    } else if (len > BASELINE_SIZE_MAX) {
        rc = iohw_error_set(err, "baseline %s: larger than %zu bytes", path,
                            BASELINE_SIZE_MAX);
    } else {
        rc = iohw_baseline_parse(text, path, b, err);
    }
    free(text);
    return rc;
}

int iohw_baseline_write(FILE *f, const iohw_baseline *b)
{
    fprintf(f, "# iohw baseline (%d entries): CASE_ID_OR_GLOB  reason\n", b->count);
    for (int k = 0; k < b->count; k++) {
        const iohw_baseline_entry *e = &b->entries[k];
        fprintf(f, "%-40s  %s%s%s\n", e->pattern, e->condition,
                e->condition[0] != '\0' ? "  " : "", e->reason);
    }
    return ferror(f) ? -1 : 0;
}

void iohw_baseline_free(iohw_baseline *b)
{
    if (b == NULL)
        return;
    for (int k = 0; k < b->count; k++)
        iohw_baseline_entry_free(&b->entries[k]);
    free(b->entries);
    free(b->path);
    memset(b, 0, sizeof *b);
}


/* 1 when the entry names this result: its case id, or its file when the
 * result stands for a whole file (no id). */
static int entry_matches(const iohw_baseline_entry *e, const iohw_result *r)
{
    const char *key = r->case_id[0] != '\0' ? r->case_id : r->file;
    return strcmp(e->pattern, key) == 0 || fnmatch(e->pattern, key, 0) == 0;
}

int iohw_baseline_entry_applies(const iohw_baseline_entry *e,
                                const iohw_run_results *r)
{
    const char *s = e->condition != NULL ? e->condition : "";
    const char *version = r->backend_version != NULL ? r->backend_version : "";
    while (*s != '\0') {
        size_t n = strcspn(s, " ");
        char *word = strndup(s, n);
        if (word == NULL)
            return 0;
        int kind = condition_kind(word, n);
        const char *value = kind >= 0 ? word + strlen(CONDITIONS[kind].key) : "";
        int holds = kind == 0   ? iohw_machine_has(&r->machine, value)
                    : kind == 1 ? !iohw_machine_has(&r->machine, value)
                    : kind == 2 ? strstr(version, value) != NULL
                    : kind == 3 ? strstr(version, value) == NULL
                                : 0;
        free(word);
        if (!holds)
            return 0;
        s += n;
        s += strspn(s, " ");
    }
    return 1;
}

int64_t iohw_baseline_apply(iohw_baseline *b, iohw_run_results *r)
{
    int64_t waived = 0;
    if (b == NULL || r == NULL)
        return 0;
    for (int k = 0; k < b->count; k++)
        b->entries[k].inapplicable = !iohw_baseline_entry_applies(&b->entries[k], r);
    for (int64_t i = 0; i < r->count; i++) {
        iohw_result *res = &r->items[i];
        if (!iohw_result_status_bad(res->status))
            continue;
        for (int k = 0; k < b->count; k++) {
            iohw_baseline_entry *e = &b->entries[k];
            if (e->inapplicable || !entry_matches(e, res))
                continue;
            res->message = iohw_text_fmt("waived: %s (was %s: %s)", e->reason,
                                         iohw_result_status_name(res->status),
                                         res->message);
            res->status = IOHW_RESULT_WAIVED;
            e->matched++;
            waived++;
            break;
        }
    }
    return waived;
}

int iohw_baseline_entry_stale(const iohw_baseline_entry *e)
{
    return e->matched == 0 && !e->inapplicable;
}

int iohw_baseline_stale_count(const iohw_baseline *b)
{
    int n = 0;
    for (int k = 0; b != NULL && k < b->count; k++)
        n += iohw_baseline_entry_stale(&b->entries[k]);
    return n;
}

void iohw_baseline_print_stale(const iohw_baseline *b, FILE *out)
{
    for (int k = 0; b != NULL && k < b->count; k++) {
        const iohw_baseline_entry *e = &b->entries[k];
        if (iohw_baseline_entry_stale(e))
            fprintf(out, "iohw: baseline %s:%d: '%s' matches no failing case "
                         "(stale: remove it if the bug is fixed)\n",
                    b->path, e->line, e->pattern);
    }
}
