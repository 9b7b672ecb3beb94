/*
 * reports/json_parse.c - a small strict JSON parser (RFC 8259) for reading
 * reports back.
 *
 * The input is hostile until proven otherwise: nesting is limited to
 * IOHW__JSON_DEPTH_MAX, numbers must follow the grammar and be finite,
 * strings must be well formed (no raw control characters, valid escapes,
 * paired surrogates, no NUL), and every error names the line and column.
 * Nodes live in one arena freed at once.
 */
#include "reports/reports_internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define NUMBER_TEXT_MAX 400  /* longest number text accepted */

typedef struct block {
    struct block *next;
    size_t used, cap;
    max_align_t data[];
} block;

struct iohw__json_doc {
    block *blocks;
    iohw__json *root;
};

typedef struct parser {
    const char *s;
    size_t len, pos;
    int line;
    size_t line_start;
    const char *name;
    iohw_error *err;
    iohw__json_doc *doc;
} parser;

/* --- memory -------------------------------------------------------------- */

static void *arena_alloc(iohw__json_doc *d, size_t size)
{
    size_t a = sizeof(max_align_t);
    size = (size + a - 1) / a * a;
    block *b = d->blocks;
    if (b == NULL || b->cap - b->used < size) {
        size_t cap = size > 65536 ? size : 65536;
        b = malloc(sizeof *b + cap);
        if (b == NULL)
            return NULL;
        b->next = d->blocks, b->used = 0, b->cap = cap;
        d->blocks = b;
    }
    void *p = (char *)b->data + b->used;
    b->used += size;
    return p;
}

/* --- errors and positions ------------------------------------------------ */

static void *fail(parser *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void *fail(parser *p, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    iohw_error_set(p->err, "%s:%d:%zu: %s", p->name, p->line,
                   p->pos - p->line_start + 1, msg);
    return NULL;
}

static void skip_space(parser *p)
{
    while (p->pos < p->len) {
        char c = p->s[p->pos];
        if (c == '\n') {
            p->line++;
            p->line_start = p->pos + 1;
        } else if (c != ' ' && c != '\t' && c != '\r') {
            return;
        }
        p->pos++;
    }
}

static iohw__json *new_node(parser *p, iohw__json_type t)
{
    iohw__json *v = arena_alloc(p->doc, sizeof *v);
    if (v == NULL)
        return fail(p, "out of memory");
    memset(v, 0, sizeof *v);
    v->type = t;
    v->line = p->line;
    v->col = (int)(p->pos - p->line_start + 1);
    v->start = p->pos;
    return v;
}

/* --- scalars ------------------------------------------------------------- */

static int literal(parser *p, const char *word)
{
    size_t n = strlen(word);
    if (p->len - p->pos < n || memcmp(p->s + p->pos, word, n) != 0)
        return 0;
    p->pos += n;
    return 1;
}

static iohw__json *parse_number(parser *p)
{
    size_t start = p->pos, i = p->pos;
    int integral = 1;
    const char *s = p->s;
    if (i < p->len && s[i] == '-')
        i++;
    if (i < p->len && s[i] == '0') {
        i++;
    } else if (i < p->len && s[i] >= '1' && s[i] <= '9') {
        while (i < p->len && s[i] >= '0' && s[i] <= '9')
            i++;
    } else {
        return fail(p, "bad number");
    }
    if (i < p->len && s[i] == '.') {
        integral = 0;
        i++;
        if (i >= p->len || s[i] < '0' || s[i] > '9')
            return fail(p, "bad number: no digit after '.'");
        while (i < p->len && s[i] >= '0' && s[i] <= '9')
            i++;
    }
    if (i < p->len && (s[i] == 'e' || s[i] == 'E')) {
        integral = 0;
        i++;
        if (i < p->len && (s[i] == '+' || s[i] == '-'))
            i++;
        if (i >= p->len || s[i] < '0' || s[i] > '9')
            return fail(p, "bad number: no digit in the exponent");
        while (i < p->len && s[i] >= '0' && s[i] <= '9')
            i++;
    }
    if (i - start > NUMBER_TEXT_MAX)
        return fail(p, "number longer than %d characters", NUMBER_TEXT_MAX);

    char text[NUMBER_TEXT_MAX + 1];
    memcpy(text, s + start, i - start);
    text[i - start] = '\0';
    iohw__json *v = new_node(p, IOHW__JSON_NUMBER);
    if (v == NULL)
        return NULL;
    errno = 0;
    v->number = strtod(text, NULL);
    if (errno == ERANGE && (v->number > 1.0 || v->number < -1.0))
        return fail(p, "number %.40s out of range", text);
    if (integral) {
        errno = 0;
        long long k = strtoll(text, NULL, 10);
        if (errno == 0) {
            v->is_int = 1;
            v->integer = (int64_t)k;
        }
    }
    p->pos = i;
    return v;
}

static int hex4(const char *s, uint32_t *v)
{
    *v = 0;
    for (int i = 0; i < 4; i++) {
        char c = s[i];
        int d = c >= '0' && c <= '9' ? c - '0'
              : c >= 'a' && c <= 'f' ? c - 'a' + 10
              : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0)
            return -1;
        *v = *v << 4 | (uint32_t)d;
    }
    return 0;
}

static size_t put_utf8(char *out, uint32_t cp)
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    } else if (cp < 0x800) {
        out[0] = (char)(0xC0 | cp >> 6);
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    } else if (cp < 0x10000) {
        out[0] = (char)(0xE0 | cp >> 12);
        out[1] = (char)(0x80 | (cp >> 6 & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | cp >> 18);
    out[1] = (char)(0x80 | (cp >> 12 & 0x3F));
    out[2] = (char)(0x80 | (cp >> 6 & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* Parses a string at p->pos (the opening quote) into arena memory. */
static const char *parse_string(parser *p)
{
    size_t i = p->pos + 1;
    /* The decoded text is never longer than the raw text. */
    size_t end = i;
    while (end < p->len && p->s[end] != '"') {
        if (p->s[end] == '\\')
            end++;
        end++;
    }
    if (end >= p->len)
        return fail(p, "string not closed");
    char *out = arena_alloc(p->doc, end - i + 1);
    if (out == NULL)
        return fail(p, "out of memory");
    size_t o = 0;
    while (i < end) {
        unsigned char c = (unsigned char)p->s[i];
        if (c < 0x20) {
            p->pos = i;
            return fail(p, "control character 0x%02x in a string", c);
        }
        if (c != '\\') {
            out[o++] = (char)c;
            i++;
            continue;
        }
        char e = p->s[i + 1];
        const char *simple = strchr("\"\\/bfnrt", e);
        if (e != '\0' && simple != NULL) {
            static const char map[] = "\"\\/\b\f\n\r\t";
            out[o++] = map[simple - "\"\\/bfnrt"];
            i += 2;
            continue;
        }
        uint32_t cp, lo;
        p->pos = i;
        if (e != 'u')
            return fail(p, "bad escape '\\%c' in a string", e >= 0x20 ? e : '?');
        if (end - i < 6 || hex4(p->s + i + 2, &cp) != 0)
            return fail(p, "bad \\u escape in a string");
        i += 6;
        if (cp >= 0xDC00 && cp <= 0xDFFF)
            return fail(p, "lone low surrogate \\u%04x in a string", (unsigned)cp);
        if (cp >= 0xD800 && cp <= 0xDBFF) {
            if (end - i < 6 || p->s[i] != '\\' || p->s[i + 1] != 'u' ||
                hex4(p->s + i + 2, &lo) != 0 || lo < 0xDC00 || lo > 0xDFFF)
                return fail(p, "high surrogate \\u%04x not followed by a low one",
                            (unsigned)cp);
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            i += 6;
        }
        if (cp == 0)
            return fail(p, "NUL character (\\u0000) in a string");
        o += put_utf8(out + o, cp);
    }
    out[o] = '\0';
    p->pos = end + 1;
    return out;
}

/* --- containers ---------------------------------------------------------- */

static iohw__json *parse_value(parser *p, int depth);

/* The members of a container being parsed, in heap arrays that grow; the
 * finished container copies them into the arena. */
typedef struct members {
    iohw__json **items;
    const char **keys;
    size_t n, cap;
} members;

/* Room for one more member; 0, or -1 after fail(). */
static int members_reserve(parser *p, members *m)
{
    if (m->n < m->cap)
        return 0;
    size_t cap = m->cap == 0 ? 8 : m->cap * 2;
    iohw__json **ni = realloc(m->items, cap * sizeof *ni);
    const char **nk = ni == NULL ? NULL : realloc(m->keys, cap * sizeof *nk);
    if (ni != NULL)
        m->items = ni;
    if (nk != NULL)
        m->keys = nk;
    if (ni == NULL || nk == NULL) {
        fail(p, "out of memory");
        return -1;
    }
    m->cap = cap;
    return 0;
}

/* An object member's name and the ':' after it; the name, or NULL after
 * fail(). */
static const char *parse_member_name(parser *p)
{
    if (p->pos >= p->len || p->s[p->pos] != '"')
        return fail(p, p->pos >= p->len ? "input ends inside an object"
                                        : "expected a member name in quotes");
    const char *key = parse_string(p);
    if (key == NULL)
        return NULL;
    skip_space(p);
    if (p->pos >= p->len || p->s[p->pos] != ':')
        return fail(p, "expected ':' after member name \"%.40s\"", key);
    p->pos++;
    return key;
}

/* Moves the members into v's arena arrays; v, or NULL after fail(). */
static iohw__json *finish_container(parser *p, iohw__json *v, const members *m,
                                    int object)
{
    v->n = m->n;
    v->items = arena_alloc(p->doc, m->n * sizeof *v->items);
    v->keys = object ? arena_alloc(p->doc, m->n * sizeof *v->keys) : NULL;
    if (v->items == NULL || (object && v->keys == NULL))
        return fail(p, "out of memory");
    memcpy(v->items, m->items, m->n * sizeof *m->items);
    if (object)
        memcpy(v->keys, m->keys, m->n * sizeof *m->keys);
    return v;
}

/* Parses an array or object; the opening bracket is at p->pos. */
static iohw__json *parse_container(parser *p, int depth, int object)
{
    iohw__json *v = new_node(p, object ? IOHW__JSON_OBJECT : IOHW__JSON_ARRAY);
    if (v == NULL)
        return NULL;
    if (depth >= IOHW__JSON_DEPTH_MAX)
        return fail(p, "nested deeper than %d levels", IOHW__JSON_DEPTH_MAX);
    char close = object ? '}' : ']';
    members m = {NULL, NULL, 0, 0};
    iohw__json *done = NULL;
    p->pos++;
    skip_space(p);
    if (p->pos < p->len && p->s[p->pos] == close) {
        p->pos++;
        return v;
    }
    for (;;) {
        const char *key = NULL;
        if (members_reserve(p, &m) != 0)
            goto out;
        skip_space(p);
        if (object && (key = parse_member_name(p)) == NULL)
            goto out;
        iohw__json *item = parse_value(p, depth + 1);
        if (item == NULL)
            goto out;
        m.items[m.n] = item;
        m.keys[m.n] = key;
        m.n++;
        skip_space(p);
        if (p->pos >= p->len) {
            fail(p, "input ends inside an %s", object ? "object" : "array");
            goto out;
        }
        if (p->s[p->pos] == close) {
            p->pos++;
            break;
        }
        if (p->s[p->pos] != ',') {
            fail(p, "expected ',' or '%c'", close);
            goto out;
        }
        p->pos++;
    }
    done = finish_container(p, v, &m, object);
out:
    free(m.items);
    free(m.keys);
    return done;
}

static iohw__json *parse_value_at(parser *p, int depth)
{
    if (p->pos >= p->len)
        return fail(p, "input ends where a value belongs");
    char c = p->s[p->pos];
    if (c == '{' || c == '[')
        return parse_container(p, depth, c == '{');
    if (c == '"') {
        iohw__json *v = new_node(p, IOHW__JSON_STRING);
        if (v == NULL || (v->string = parse_string(p)) == NULL)
            return NULL;
        return v;
    }
    if (c == '-' || (c >= '0' && c <= '9'))
        return parse_number(p);
    iohw__json *v = new_node(p, IOHW__JSON_NULL);
    if (v == NULL)
        return NULL;
    if (literal(p, "null"))
        return v;
    v->type = IOHW__JSON_BOOL;
    if (literal(p, "true")) {
        v->boolean = 1;
        return v;
    }
    if (literal(p, "false"))
        return v;
    if ((unsigned char)c >= 0x20 && (unsigned char)c < 0x7F)
        return fail(p, "unexpected character '%c'", c);
    return fail(p, "unexpected byte 0x%02x", (unsigned char)c);
}

static iohw__json *parse_value(parser *p, int depth)
{
    skip_space(p);
    iohw__json *v = parse_value_at(p, depth);
    if (v != NULL)
        v->end = p->pos;
    return v;
}

/* --- the document -------------------------------------------------------- */

iohw__json_doc *iohw__json_parse(const char *text, size_t len,
                                 const char *name, iohw_error *err)
{
    parser p = {0};
    p.s = text, p.len = len, p.line = 1;
    p.name = name != NULL ? name : "json";
    p.err = err;
    if (text == NULL)
        return iohw_error_set(err, "%s: no text", p.name), NULL;
    const char *nul = memchr(text, '\0', len);
    if (nul != NULL) {
        p.pos = (size_t)(nul - text);
        for (size_t i = 0; i < p.pos; i++)
            if (text[i] == '\n')
                p.line++, p.line_start = i + 1;
        return fail(&p, "NUL byte in the input");
    }
    p.doc = calloc(1, sizeof *p.doc);
    if (p.doc == NULL)
        return iohw_error_set(err, "%s: out of memory", p.name), NULL;
    /* A UTF-8 byte order mark is tolerated. */
    if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
        p.pos = 3;
    p.doc->root = parse_value(&p, 0);
    if (p.doc->root != NULL) {
        skip_space(&p);
        if (p.pos < p.len) {
            fail(&p, "text after the end of the document");
            p.doc->root = NULL;
        }
    }
    if (p.doc->root == NULL) {
        iohw__json_free(p.doc);
        return NULL;
    }
    return p.doc;
}

const iohw__json *iohw__json_root(const iohw__json_doc *d)
{
    return d != NULL ? d->root : NULL;
}

void iohw__json_free(iohw__json_doc *d)
{
    if (d == NULL)
        return;
    for (block *b = d->blocks, *next; b != NULL; b = next) {
        next = b->next;
        free(b);
    }
    free(d);
}

const iohw__json *iohw__json_get(const iohw__json *o, const char *key)
{
    if (o == NULL || o->type != IOHW__JSON_OBJECT)
        return NULL;
    for (size_t i = 0; i < o->n; i++)
        if (strcmp(o->keys[i], key) == 0)
            return o->items[i];
    return NULL;
}
