/*
 * cli/benchdnn_desc.c - one benchdnn deconvolution descriptor
 * (specification section 14; the format and its rules: cli/benchdnn.h,
 * after oneDNN's tests/benchdnn/doc/knobs_desc.md and driver_conv.md).
 */
#include "cli/benchdnn.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The entries, each with where its value goes; -1 = not given. */
typedef struct raw {
    int64_t g, mb, ic, oc, in[3], out[3], k[3], s[3], p[3], d[3];
} raw;

static int64_t *slot(raw *r, const char *key)
{
    static const char AXES[] = "dhw";
    if (strcmp(key, "g") == 0) return &r->g;
    if (strcmp(key, "mb") == 0) return &r->mb;
    if (strcmp(key, "ic") == 0) return &r->ic;
    if (strcmp(key, "oc") == 0) return &r->oc;
    const char *a = strchr(AXES, key[1]);
    if (strlen(key) != 2 || a == NULL || key[1] == '\0')
        return NULL;
    int i = (int)(a - AXES);
    switch (key[0]) {
    case 'i': return &r->in[i];
    case 'o': return &r->out[i];
    case 'k': return &r->k[i];
    case 's': return &r->s[i];
    case 'p': return &r->p[i];
    case 'd': return &r->d[i];
    default: return NULL;
    }
}

/* The entry key at t: "mb", "ic", ..., "g" (longest first), or 0. */
static size_t key_at(const char *t, char key[3])
{
    static const char *const KEYS[] = {
        "mb", "ic", "id", "ih", "iw", "oc", "od", "oh", "ow", "kd", "kh", "kw",
        "sd", "sh", "sw", "pd", "ph", "pw", "dd", "dh", "dw", "g"};
    for (size_t i = 0; i < sizeof KEYS / sizeof KEYS[0]; i++) {
        size_t n = strlen(KEYS[i]);
        if (strncmp(t, KEYS[i], n) == 0) {
            memcpy(key, KEYS[i], n + 1);
            return n;
        }
    }
    return 0;
}

/* The name after 'n': quotes taken off. */
static int take_name(const char *t, iohw__bdnn_desc *d, const char *text, iohw_error *err)
{
    size_t n = strlen(t);
    if (n >= 2 && t[0] == '"' && t[n - 1] == '"') {
        t++;
        n -= 2;
    }
    if (n >= sizeof d->name)
        return iohw_error_set(err, "'%s': the name is longer than %zu characters",
                              text, sizeof d->name - 1);
    memcpy(d->name, t, n);
    d->name[n] = '\0';
    return 0;
}

/* Reads the entries of text into r (and the name into d). */
static int read_entries(const char *text, raw *r, iohw__bdnn_desc *d, iohw_error *err)
{
    const char *t = text;
    while (*t != '\0') {
        char key[3];
        size_t n = key_at(t, key);
        if (n == 0 && *t == 'n')
            return take_name(t + 1, d, text, err);
        if (n == 0)
            return iohw_error_set(err, "'%s': no entry at '%.16s' (entries: g mb ic id ih "
                                  "iw oc od oh ow kd kh kw sd sh sw pd ph pw dd dh dw, "
                                  "then n\"NAME\")", text, t);
        const char *v = t + n;
        if (*v < '0' || *v > '9')
            return iohw_error_set(err, "'%s': '%s' has no value", text, key);
        char *end;
        errno = 0;
        long long x = strtoll(v, &end, 10);
        if (errno != 0 || x > 1000000000LL)
            return iohw_error_set(err, "'%s': '%s' is out of range", text, key);
        *slot(r, key) = x;
        t = end;
        if (*t == '_')
            t++;
    }
    return 0;
}

/* Spreads a higher axis's entries to the lower axes not given, as benchdnn
 * does: the rank is that of the highest axis with an entry. */
static int spread_axes(raw *r, int *rank, const char *text, iohw_error *err)
{
    int given[3];
    for (int a = 0; a < 3; a++) /* benchdnn: a stride of 1, a padding of 0 say nothing */
        given[a] = r->in[a] > 0 || r->out[a] > 0 || r->k[a] > 0 || r->d[a] > 0 ||
                   (r->s[a] >= 0 && r->s[a] != 1) || r->p[a] >= 1;
    int top = given[0] ? 0 : given[1] ? 1 : given[2] ? 2 : -1;
    if (top < 0)
        return iohw_error_set(err, "'%s': no spatial entry (give at least iw and kw)",
                              text);
    if (top == 0 && given[1] != given[2])
        return iohw_error_set(err, "'%s': a 3-d problem gives its h and w entries "
                              "both or neither", text);
    for (int a = top + 1; a < 3; a++) {
        if (given[a])
            continue;
        r->in[a] = r->in[a - 1]; r->out[a] = r->out[a - 1]; r->k[a] = r->k[a - 1];
        r->s[a] = r->s[a - 1]; r->p[a] = r->p[a - 1]; r->d[a] = r->d[a - 1];
    }
    *rank = 3 - top;
    return 0;
}

/* Fills axis a of d from r: the output size or the padding deduced. */
static int finish_axis(const raw *r, int a, iohw__bdnn_desc *d, const char *text,
                       iohw_error *err)
{
    static const char AXES[] = "dhw";
    int64_t i = r->in[a], k = r->k[a], s = r->s[a] < 0 ? 1 : r->s[a];
    int64_t dil = r->d[a] < 0 ? 0 : r->d[a], p = r->p[a], o = r->out[a];
    if (i <= 0 || k <= 0 || s <= 0)
        return iohw_error_set(err, "'%s': i%c, k%c and s%c must be positive", text,
                              AXES[a], AXES[a], AXES[a]);
    int64_t span = (i - 1) * s + (k - 1) * (dil + 1) + 1;
    if (o <= 0) {
        if (p < 0)
            p = 0;
        o = span - 2 * p;
        if (o <= 0)
            return iohw_error_set(err, "'%s': o%c deduced as %lld, not positive", text,
                                  AXES[a], (long long)o);
    } else if (p < 0) {
        p = (span - o) / 2;
    }
    int j = a - (3 - d->rank);
    d->in[j] = i; d->out[j] = o; d->k[j] = k; d->s[j] = s; d->d[j] = dil;
    d->pad_begin[j] = p;
    d->pad_end[j] = span - p - o;
    return 0;
}

int iohw__bdnn_parse_desc(const char *text, iohw__bdnn_desc *d, iohw_error *err)
{
    raw r;
    memset(d, 0, sizeof *d);
    memset(&r, 0xff, sizeof r); /* every entry -1: not given */
    for (int a = 0; a < 3; a++)
        r.d[a] = 0;
    if (read_entries(text, &r, d, err) != 0 || spread_axes(&r, &d->rank, text, err) != 0)
        return -1;
    d->g = r.g < 0 ? 1 : r.g;
    d->mb = r.mb < 0 ? 2 : r.mb;
    d->ic = r.ic;
    d->oc = r.oc;
    if (d->g <= 0 || d->mb <= 0 || d->ic <= 0 || d->oc <= 0)
        return iohw_error_set(err, "'%s': g, mb, ic and oc must be positive (ic and oc "
                              "have no default)", text);
    for (int a = 3 - d->rank; a < 3; a++)
        if (finish_axis(&r, a, d, text, err) != 0)
            return -1;
    return 0;
}
