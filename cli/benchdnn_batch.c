/*
 * cli/benchdnn_batch.c - benchdnn's batch files and command-line words
 * (specification section 14; cli/benchdnn.h): the options that change the
 * problem (--dir, --dt, --cfg, --mb, --match, --reset, --batch) are
 * followed, the others noted as ignored, and every descriptor is handed on
 * once per direction and data type in force.
 */
#include "cli/benchdnn.h"

#include <errno.h>
#include <limits.h>
#include <regex.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_LIST 16          /* values of one --dir or --dt */
#define MAX_DEPTH 16         /* nested --batch files */
#define MAX_FILE (16L << 20) /* bytes of a batch file */
#define MAX_SEEN 64          /* ignored options noted once each */

typedef struct state {
    char dirs[MAX_LIST][16], dts[MAX_LIST][32];
    int ndir, ndt;
    int64_t mb;
    regex_t match;
    int has_match, other_driver;
    const iohw__bdnn_sink *sink;
    const char *files[MAX_DEPTH]; /* the --batch chain, for cycles */
    int depth, errors;
    char seen[MAX_SEEN][32];
    int nseen;
} state;

static void note(state *st, int error, const char *file, int line, const char *fmt, ...)
{
    char msg[1024];
    int k = line > 0 ? snprintf(msg, sizeof msg, "%s:%d: ", file, line)
                     : snprintf(msg, sizeof msg, "%s: ", file);
    if (k < 0 || (size_t)k >= sizeof msg)
        k = 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg + k, sizeof msg - (size_t)k, fmt, ap);
    va_end(ap);
    st->errors += error;
    st->sink->note(st->sink->ctx, error, msg);
}

static void reset(state *st)
{
    if (st->has_match)
        regfree(&st->match);
    st->has_match = 0;
    st->ndir = st->ndt = 1;
    strcpy(st->dirs[0], "FWD_B");
    strcpy(st->dts[0], "f32");
    st->mb = 0;
    st->other_driver = 0;
}

/* Splits a comma-separated value into list (cap entries of size w). */
static int split(const char *v, char *list, int cap, size_t w, int *count)
{
    int n = 0;
    for (const char *p = v; n < cap; n++) {
        size_t len = strcspn(p, ",");
        if (len == 0 || len >= w)
            return -1;
        memcpy(list + (size_t)n * w, p, len);
        list[(size_t)n * w + len] = '\0';
        p += len;
        if (*p == '\0') {
            *count = n + 1;
            return 0;
        }
        p++;
    }
    return -1;
}

/* benchdnn's deprecated --cfg names as --dt values. */
static const char *cfg_dt(const char *cfg)
{
    static const char *const CFG[][2] = {
        {"f32", "f32"}, {"f64", "f64"}, {"f16", "f16"}, {"bf16bf16bf16", "bf16"},
        {"u8s8u8", "u8:s8:u8"}, {"u8s8s8", "u8:s8:s8"}, {"u8s8s32", "u8:s8:s32"},
        {"s8s8u8", "s8:s8:u8"}, {"s8s8s8", "s8:s8:s8"}, {"s8s8s32", "s8:s8:s32"},
        {"u8s8f32", "u8:s8:f32"}, {"s8s8f32", "s8:s8:f32"},
        {"bf16bf16f32", "bf16:bf16:f32"}};
    for (size_t i = 0; i < sizeof CFG / sizeof CFG[0]; i++)
        if (strcmp(cfg, CFG[i][0]) == 0)
            return CFG[i][1];
    return NULL;
}

static int is_driver(const char *opt)
{
    static const char *const DRIVERS[] = {
        "--conv", "--matmul", "--ip", "--pool", "--eltwise", "--bnorm", "--lnorm",
        "--gnorm", "--sum", "--concat", "--reorder", "--softmax", "--binary",
        "--prelu", "--resampling", "--shuffle", "--lrn", "--reduction", "--rnn",
        "--zeropad", "--brgemm", "--graph", "--self", "--bnorm"};
    for (size_t i = 0; i < sizeof DRIVERS / sizeof DRIVERS[0]; i++)
        if (strcmp(opt, DRIVERS[i]) == 0)
            return 1;
    return 0;
}

/* Notes an option iohw does not follow, once per name. */
static void ignored(state *st, const char *file, int line, const char *name)
{
    for (int i = 0; i < st->nseen; i++)
        if (strcmp(st->seen[i], name) == 0)
            return;
    if (st->nseen < MAX_SEEN)
        snprintf(st->seen[st->nseen++], sizeof st->seen[0], "%s", name);
    const char *why = strncmp(name, "--attr", 6) == 0
        ? "iohw checks the deconvolution alone (no post-ops, scales or zero points)"
        : strstr(name, "tag") != NULL || strcmp(name, "--strides") == 0
        ? "iohw writes each case in its own layouts (specification section 2)"
        : "it chooses how benchdnn runs, not the problem";
    note(st, 0, file, line, "%s ignored: %s", name, why);
}

static int read_file(state *st, const char *path, const char *from, int line);

/* The path of --batch=NAME: beside the including file, else as given. */
static void batch_path(const char *from, const char *name, char *out, size_t n)
{
    const char *slash = from != NULL ? strrchr(from, '/') : NULL;
    if (name[0] != '/' && slash != NULL) {
        snprintf(out, n, "%.*s/%s", (int)(slash - from), from, name);
        FILE *f = fopen(out, "r");
        if (f != NULL) {
            fclose(f);
            return;
        }
    }
    snprintf(out, n, "%s", name);
}

/* An option word (errors are noted). */
static void option(state *st, const char *word, const char *file, int line)
{
    char name[32];
    const char *eq = strchr(word, '=');
    size_t len = eq != NULL ? (size_t)(eq - word) : strlen(word);
    snprintf(name, sizeof name, "%.*s", (int)(len < sizeof name ? len : sizeof name - 1), word);
    const char *v = eq != NULL ? eq + 1 : "";
    if (strcmp(name, "--reset") == 0) {
        reset(st);
    } else if (strcmp(name, "--deconv") == 0) {
        st->other_driver = 0;
    } else if (is_driver(name)) {
        st->other_driver = 1;
        note(st, 1, file, line, "%s: iohw imports deconvolution problems only; the "
             "descriptors up to the next --deconv are skipped", name);
    } else if (strcmp(name, "--dir") == 0) {
        if (split(v, &st->dirs[0][0], MAX_LIST, sizeof st->dirs[0], &st->ndir) != 0)
            note(st, 1, file, line, "--dir=%.64s: at most %d names, comma-separated", v,
                 MAX_LIST);
    } else if (strcmp(name, "--dt") == 0) {
        if (split(v, &st->dts[0][0], MAX_LIST, sizeof st->dts[0], &st->ndt) != 0)
            note(st, 1, file, line, "--dt=%.64s: at most %d types, comma-separated", v,
                 MAX_LIST);
    } else if (strcmp(name, "--cfg") == 0) {
        const char *dt = cfg_dt(v);
        if (dt == NULL)
            note(st, 1, file, line, "--cfg=%.64s: not a configuration iohw knows; use --dt", v);
        else {
            snprintf(st->dts[0], sizeof st->dts[0], "%s", dt);
            st->ndt = 1;
        }
    } else if (strcmp(name, "--mb") == 0) {
        char *end;
        long long mb = strtoll(v, &end, 10);
        if (end == v || *end != '\0' || mb < 0 || mb > 1000000)
            note(st, 1, file, line, "--mb=%.64s: a whole number (0: the descriptor's)", v);
        else
            st->mb = mb;
    } else if (strcmp(name, "--match") == 0) {
        if (st->has_match)
            regfree(&st->match);
        st->has_match = regcomp(&st->match, v, REG_EXTENDED | REG_NOSUB) == 0;
        if (!st->has_match)
            note(st, 1, file, line, "--match=%.64s: not a regular expression", v);
    } else if (strcmp(name, "--batch") == 0) {
        char path[PATH_MAX];
        batch_path(file, v, path, sizeof path);
        read_file(st, path, file, line);
    } else {
        ignored(st, file, line, name);
    }
}

/* A descriptor word: one problem per direction and data type. */
static void descriptor(state *st, const char *word, const char *file, int line)
{
    if (st->other_driver)
        return;
    if (st->has_match && regexec(&st->match, word, 0, NULL, 0) != 0)
        return;
    for (int i = 0; i < st->ndir; i++)
        for (int j = 0; j < st->ndt; j++) {
            iohw__bdnn_item it = {file, line, word, {st->dirs[i], st->dts[j], st->mb}};
            st->sink->problem(st->sink->ctx, &it);
        }
}

/* The words of text, comments (# to the end of the line) left out. */
static void read_words(state *st, char *text, const char *file)
{
    int line = 1;
    char *p = text;
    while (*p != '\0') {
        if (*p == '\n')
            line++;
        if (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') {
            p++;
            continue;
        }
        if (*p == '#') {
            p += strcspn(p, "\n");
            continue;
        }
        char *w = p;
        p += strcspn(p, " \t\r\n");
        char saved = *p;
        *p = '\0';
        if (w[0] == '-')
            option(st, w, file, line);
        else
            descriptor(st, w, file, line);
        *p = saved;
    }
}

/* The bytes of path into a NUL-terminated buffer, or NULL (noted). */
static char *slurp(state *st, const char *path, const char *from, int line)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        note(st, 1, from, line, "cannot open the batch file '%s': %s", path, strerror(errno));
        return NULL;
    }
    struct stat sb;
    long size = fstat(fileno(f), &sb) != 0 || !S_ISREG(sb.st_mode) ? -1
                : fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    char *buf = size >= 0 && size <= MAX_FILE && fseek(f, 0, SEEK_SET) == 0
                ? malloc((size_t)size + 1) : NULL;
    size_t n = buf != NULL ? fread(buf, 1, (size_t)size, f) : 0;
    fclose(f);
    if (buf == NULL || n != (size_t)size || memchr(buf, '\0', n) != NULL) {
        note(st, 1, from, line, "'%s' is not a benchdnn batch file (%s)", path,
             size < 0 ? "not a regular file" : size > MAX_FILE ? "more than 16 MiB"
             : buf == NULL ? "out of memory" : n != (size_t)size ? "a short read"
             : "it holds a NUL byte");
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    return buf;
}

static int read_file(state *st, const char *path, const char *from, int line)
{
    if (st->depth == MAX_DEPTH) {
        note(st, 1, from, line, "--batch=%s: batch files nest deeper than %d", path,
             MAX_DEPTH);
        return -1;
    }
    for (int i = 0; i < st->depth; i++)
        if (strcmp(st->files[i], path) == 0) {
            note(st, 1, from, line, "--batch=%s: the file includes itself", path);
            return -1;
        }
    char *text = slurp(st, path, from, line);
    if (text == NULL)
        return -1;
    st->files[st->depth++] = path;
    read_words(st, text, path);
    st->depth--;
    free(text);
    return 0;
}

int iohw__bdnn_read(const char *name, const char *text, const iohw__bdnn_sink *sink)
{
    state st;
    memset(&st, 0, sizeof st);
    st.sink = sink;
    reset(&st);
    if (text == NULL) {
        read_file(&st, name, name, 0);
    } else {
        char *copy = strdup(text);
        if (copy == NULL)
            note(&st, 1, name, 0, "out of memory");
        else
            read_words(&st, copy, name);
        free(copy);
    }
    if (st.has_match)
        regfree(&st.match);
    return st.errors;
}
