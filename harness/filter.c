/*
 * harness/filter.c - choosing cases: --filter expressions and --shard I/N.
 *
 * Grammar (spaces around conditions and operators are ignored):
 *   filter    = condition { "," condition }
 *   condition = KEY OP VALUE | GLOB
 *   OP        = "=" | "!=" | "<" | "<=" | ">" | ">="
 * A condition holding '=', '<' or '>' is KEY OP VALUE; any other is a bare id
 * glob.  tag, id and the string keys accept only = and !=; numeric keys
 * accept every operator and an integer value.  Per-axis keys compare the
 * largest value over the case's axes.
 *
 * Shards: a case belongs to shard I of N when h(id) mod N = I - 1, with h
 * the 64-bit FNV-1a hash of the id followed by the splitmix64 finaliser (so
 * that ids differing in their last character spread over every shard).
 */
#include "harness/filter.h"

#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "oracle/dtype.h"
#include "oracle/problem.h"

/* The values of dir= (specification section 13): a direction whatever
 * the bias (fwd, bwd_d, bwd_w), either backward one (bwd), or benchdnn's
 * names, which fix the bias too (fwd_d, fwd_b, bwd_wb; bwd_d is both). */
typedef struct dir_value {
    const char *name;
    int32_t direction;   /* -1: any backward direction */
    int32_t bias;        /* -1: either */
} dir_value;

static const dir_value dir_values[] = {
    {"fwd", IOHW_DIR_FWD, -1},     {"bwd", -1, -1},
    {"bwd_d", IOHW_DIR_BWD_D, -1}, {"bwd_w", IOHW_DIR_BWD_W, -1},
    {"fwd_d", IOHW_DIR_FWD, 0},    {"fwd_b", IOHW_DIR_FWD, 1},
    {"bwd_wb", IOHW_DIR_BWD_W, 1},
};
#define NDIR_VALUES (int)(sizeof dir_values / sizeof dir_values[0])

/* The index of a dir= value (any case), or -1. */
static int dir_value_index(const char *text)
{
    for (int i = 0; i < NDIR_VALUES; i++)
        if (strcasecmp(text, dir_values[i].name) == 0)
            return i;
    return -1;
}

static int dir_holds(const dir_value *v, const iohw_problem *p)
{
    if (v->direction == -1 ? !iohw_problem_is_backward(p)
                           : p->direction != v->direction)
        return 0;
    return v->bias == -1 || p->has_bias == v->bias;
}

typedef enum op_kind { OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE } op_kind;

typedef enum key_kind { KEY_NUMBER, KEY_AXES, KEY_STRING, KEY_TAG, KEY_ID,
                        KEY_DIR } key_kind;

typedef struct key_def {
    const char *name;
    key_kind kind;
    int field;  /* which member: see number_of, axes_of, string_of */
} key_def;

static const key_def keys[] = {
    {"rank", KEY_NUMBER, 0}, {"n", KEY_NUMBER, 1},  {"ci", KEY_NUMBER, 2},
    {"co", KEY_NUMBER, 3},   {"g", KEY_NUMBER, 4},  {"k", KEY_AXES, 0},
    {"s", KEY_AXES, 1},      {"d", KEY_AXES, 2},    {"pb", KEY_AXES, 3},
    {"pe", KEY_AXES, 4},     {"op", KEY_AXES, 5},   {"in", KEY_AXES, 6},
    {"out", KEY_AXES, 7},    {"dt", KEY_STRING, 0}, {"xl", KEY_STRING, 1},
    {"wl", KEY_STRING, 2},   {"fill", KEY_STRING, 3}, {"tag", KEY_TAG, 0},
    {"dir", KEY_DIR, 0},     {"id", KEY_ID, 0},
};

static const struct {
    const char *text;
    op_kind op;
} ops[] = {
    {"=", OP_EQ}, {"!=", OP_NE}, {"<", OP_LT},
    {"<=", OP_LE}, {">", OP_GT}, {">=", OP_GE},
};

typedef struct condition {
    const key_def *key;  /* the id glob key for a bare glob */
    op_kind op;
    int64_t number;      /* numeric keys */
    char *text;          /* string keys, tags and globs */
} condition;

struct iohw_filter {
    int count;
    condition *conds;
};

/* --- parsing --------------------------------------------------------- */

static char *trimmed_copy(const char *s, size_t n)
{
    while (n > 0 && isspace((unsigned char)*s)) {
        s++;
        n--;
    }
    while (n > 0 && isspace((unsigned char)s[n - 1]))
        n--;
    char *t = malloc(n + 1);
    if (t != NULL) {
        memcpy(t, s, n);
        t[n] = '\0';
    }
    return t;
}

static int parse_condition(const char *text, condition *cd, iohw_error *err)
{
    size_t klen = strcspn(text, "=!<>");
    size_t olen;
    char *key;

    cd->text = NULL;

    /* A bare word is an id glob. */
    if (strpbrk(text, "=<>") == NULL) {
        cd->key = &keys[sizeof keys / sizeof keys[0] - 1];
        cd->op = OP_EQ;
        cd->text = strdup(text);
        return cd->text != NULL ? 0 : iohw_error_set(err, "filter: out of memory");
    }

    /* KEY */
    key = trimmed_copy(text, klen);
    if (key == NULL)
        return iohw_error_set(err, "filter: out of memory");
    cd->key = NULL;
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (strcmp(keys[i].name, key) == 0)
            cd->key = &keys[i];
    if (cd->key == NULL) {
        if (key[0] == '\0')
            iohw_error_set(err, "filter condition \"%s\": missing key before the "
                           "operator", text);
        else
            iohw_error_set(err, "filter condition \"%s\": unknown key \"%s\" (keys: "
                           "rank n ci co g k s d pb pe op in out dt xl wl fill dir tag "
                           "id)", text, key);
        free(key);
        return -1;
    }
    free(key);

    /* OP */
    olen = strspn(text + klen, "=!<>");
    cd->op = (op_kind)-1;
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (strlen(ops[i].text) == olen && strncmp(ops[i].text, text + klen, olen) == 0)
            cd->op = ops[i].op;
    if ((int)cd->op == -1)
        return iohw_error_set(err, "filter condition \"%s\": bad operator \"%.*s\" "
                              "(use = != < <= > >=)", text, (int)olen, text + klen);
    if (cd->key->kind != KEY_NUMBER && cd->key->kind != KEY_AXES &&
        cd->op != OP_EQ && cd->op != OP_NE)
        return iohw_error_set(err, "filter condition \"%s\": bad operator \"%.*s\" "
                              "for key \"%s\" (only = and !=)", text, (int)olen,
                              text + klen, cd->key->name);

    /* VALUE */
    cd->text = trimmed_copy(text + klen + olen, strlen(text + klen + olen));
    if (cd->text == NULL)
        return iohw_error_set(err, "filter: out of memory");
    if (cd->text[0] == '\0')
        return iohw_error_set(err, "filter condition \"%s\": missing value", text);
    if (cd->key->kind == KEY_DIR) {
        cd->number = dir_value_index(cd->text);
        if (cd->number < 0)
            return iohw_error_set(err, "filter condition \"%s\": unknown "
                                  "direction \"%s\" (fwd, bwd, bwd_d, bwd_w, "
                                  "fwd_d, fwd_b, bwd_wb)", text, cd->text);
    }
    if (cd->key->kind == KEY_NUMBER || cd->key->kind == KEY_AXES) {
        char *end;
        errno = 0;
        long long v = strtoll(cd->text, &end, 10);
        if (errno != 0 || *end != '\0')
            return iohw_error_set(err, "filter condition \"%s\": bad number \"%s\"",
                                  text, cd->text);
        cd->number = v;
    }
    return 0;
}

iohw_filter *iohw_filter_parse(const char *expr, iohw_error *err)
{
    iohw_filter *f;
    const char *s;
    int n = 1;

    if (expr == NULL)
        return iohw_error_set(err, "filter: no expression"), NULL;
    for (s = expr; *s != '\0'; s++)
        n += *s == ',';
    f = calloc(1, sizeof *f);
    if (f != NULL)
        f->conds = calloc((size_t)n, sizeof *f->conds);
    if (f == NULL || f->conds == NULL) {
        free(f);
        iohw_error_set(err, "filter: out of memory");
        return NULL;
    }

    /* One condition per comma-separated piece. */
    s = expr;
    for (int i = 0; i < n; i++) {
        size_t len = strcspn(s, ",");
        char *piece = trimmed_copy(s, len);
        int rc;
        if (piece == NULL)
            rc = iohw_error_set(err, "filter: out of memory");
        else if (piece[0] == '\0')
            rc = iohw_error_set(err, "filter \"%s\": condition %d is empty", expr,
                                i + 1);
        else
            rc = parse_condition(piece, &f->conds[i], err);
        f->count = i + 1;
        free(piece);
        if (rc != 0) {
            iohw_filter_free(f);
            return NULL;
        }
        s += len + (s[len] == ',');
    }
    return f;
}

void iohw_filter_free(iohw_filter *f)
{
    if (f == NULL)
        return;
    for (int i = 0; i < f->count; i++)
        free(f->conds[i].text);
    free(f->conds);
    free(f);
}

int iohw_filter_count(const iohw_filter *f)
{
    return f != NULL ? f->count : 0;
}

int iohw_filter_condition_at(const iohw_filter *f, int i,
                             iohw_filter_condition *out)
{
    if (f == NULL || out == NULL || i < 0 || i >= f->count)
        return -1;
    const condition *cd = &f->conds[i];
    out->key = cd->key->name;
    out->op = "=";
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++)
        if (ops[k].op == cd->op)
            out->op = ops[k].text;
    out->number = cd->number;
    out->text = cd->text;
    return 0;
}

/* --- matching -------------------------------------------------------- */

static int64_t number_of(const iohw_case *c, int field)
{
    switch (field) {
    case 0: return c->p.rank;
    case 1: return c->p.batch;
    case 2: return c->p.in_channels;
    case 3: return c->p.out_channels;
    default: return c->p.groups;
    }
}

static int64_t axes_of(const iohw_case *c, int field)
{
    const int64_t *v;
    int64_t best;
    int rank = c->p.rank >= 1 && c->p.rank <= 3 ? (int)c->p.rank : 3;

    switch (field) {
    case 0: v = c->p.kernel; break;
    case 1: v = c->p.stride; break;
    case 2: v = c->p.dilation; break;
    case 3: v = c->p.pad_begin; break;
    case 4: v = c->p.pad_end; break;
    case 5: v = c->p.output_padding; break;
    case 6: v = c->p.in_size; break;
    default: v = c->p.out_size; break;
    }
    best = v[0];
    for (int a = 1; a < rank; a++)
        if (v[a] > best)
            best = v[a];
    return best;
}

static const char *string_of(const iohw_case *c, int field)
{
    switch (field) {
    case 0: return iohw_dtype_name(c->p.dtype);
    case 1: return c->p.data_layout;
    case 2: return c->p.weight_layout;
    default: return c->fill;
    }
}

static int has_tag(const char *tags, const char *name)
{
    size_t n = strlen(name);
    const char *s = tags;

    if (tags == NULL)
        return 0;
    while (*s != '\0') {
        size_t len = strcspn(s, ",");
        if (len == n && strncmp(s, name, n) == 0)
            return 1;
        s += len + (s[len] == ',');
    }
    return 0;
}

static int compare_numbers(int64_t a, op_kind op, int64_t b)
{
    switch (op) {
    case OP_EQ: return a == b;
    case OP_NE: return a != b;
    case OP_LT: return a < b;
    case OP_LE: return a <= b;
    case OP_GT: return a > b;
    default: return a >= b;
    }
}

static int condition_holds(const condition *cd, const iohw_case *c)
{
    int eq;

    switch (cd->key->kind) {
    case KEY_NUMBER:
        return compare_numbers(number_of(c, cd->key->field), cd->op, cd->number);
    case KEY_AXES:
        return compare_numbers(axes_of(c, cd->key->field), cd->op, cd->number);
    case KEY_STRING:
        eq = strcmp(string_of(c, cd->key->field), cd->text) == 0;
        break;
    case KEY_TAG:
        eq = has_tag(c->tags, cd->text);
        break;
    case KEY_DIR:
        eq = dir_holds(&dir_values[cd->number], &c->p);
        break;
    default:
        eq = fnmatch(cd->text, c->id, 0) == 0;
        break;
    }
    return cd->op == OP_EQ ? eq : !eq;
}

int iohw_filter_match(const iohw_filter *f, const iohw_case *c)
{
    if (f == NULL || c == NULL)
        return 0;
    for (int i = 0; i < f->count; i++)
        if (!condition_holds(&f->conds[i], c))
            return 0;
    return 1;
}

/* --- shards ---------------------------------------------------------- */

#define SHARD_MAX 1000000

int iohw_shard_parse(const char *text, int *index, int *count, iohw_error *err)
{
    char *end, *end2;
    long i, n;

    if (text == NULL || index == NULL || count == NULL)
        return iohw_error_set(err, "shard: missing argument");
    errno = 0;
    i = strtol(text, &end, 10);
    if (end == text || !isdigit((unsigned char)text[0]) || *end != '/')
        return iohw_error_set(err, "shard \"%s\": expected I/N, e.g. 1/4", text);
    n = strtol(end + 1, &end2, 10);
    if (end2 == end + 1 || !isdigit((unsigned char)end[1]) || *end2 != '\0')
        return iohw_error_set(err, "shard \"%s\": expected I/N, e.g. 1/4", text);
    if (errno != 0 || n < 1 || n > SHARD_MAX)
        return iohw_error_set(err, "shard \"%s\": the count N must be between 1 and %d",
                              text, SHARD_MAX);
    if (i < 1 || i > n)
        return iohw_error_set(err, "shard \"%s\": the index I must be between 1 and "
                              "N = %ld", text, n);
    *index = (int)i;
    *count = (int)n;
    return 0;
}

/* The shard hash of a case id: 64-bit FNV-1a (offset basis and prime),
 * then splitmix64's finalizer to spread the bits; stable across builds. */
static uint64_t id_hash(const char *s)
{
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    for (; *s != '\0'; s++) {
        h ^= (unsigned char)*s;
        h *= UINT64_C(0x100000001b3);
    }
    h = (h ^ (h >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    h = (h ^ (h >> 27)) * UINT64_C(0x94D049BB133111EB);
    return h ^ (h >> 31);
}

int iohw_shard_match(const char *case_id, int index, int count)
{
    if (case_id == NULL || count < 1 || index < 1 || index > count)
        return 0;
    return id_hash(case_id) % (uint64_t)count == (uint64_t)(index - 1);
}
