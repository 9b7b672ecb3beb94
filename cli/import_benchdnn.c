/*
 * cli/import_benchdnn.c - `iohw import benchdnn`: benchdnn deconvolution
 * descriptors and batch files as an iohw case file (specification section
 * 14; cli/benchdnn.h reads them).
 */
#include "cli/benchdnn.h"
#include "cli/cli.h"
#include "cli/import.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cases/case.h"
#include "generators/generators.h"
#include "oracle/descriptor.h"
#include "oracle/problem.h"

const char iohw__import_benchdnn_help[] =
    "Usage: iohw import benchdnn [BENCHDNN WORDS...] -o OUT.h5 [--dry-run]\n"
    "                            [--max-macs N] [--threads N]\n"
    "\n"
    "Reads oneDNN benchdnn's deconvolution problems and writes them as iohw\n"
    "cases (inputs filled, the oracle's outputs) into the case file OUT.h5,\n"
    "to run with 'iohw run'.  The words are what follows 'benchdnn --deconv'\n"
    "on its command line, in order: descriptors such as\n"
    "g2mb2ic16ih7oc16oh14kh3sh2ph1n\"name\" (benchdnn's defaults: g 1, mb 2,\n"
    "strides 1, dilations 0 (iohw's d = 1 + benchdnn's), padding deduced from\n"
    "the output size), batch files (a word naming an existing file, or\n"
    "--batch=FILE; a file's own --batch= lines are found beside it) and the\n"
    "options --dir=FWD_B,FWD_D,FWD_I,BWD_D,BWD_W,BWD_WB (default FWD_B),\n"
    "--dt=f32|f64|f16|bf16|u8:s8:u8|... (default f32), --cfg=, --mb=N (0: the\n"
    "descriptor's), --match=REGEX and --reset.  Each descriptor becomes one\n"
    "case per direction and data type in force, its id\n"
    "benchdnn.<number>.<name>.<dir>.<dt>, tagged benchdnn.  Other benchdnn\n"
    "options (--attr-*, --stag, --skip-impl, ...) are noted once and ignored:\n"
    "iohw checks the deconvolution alone.  A problem iohw cannot state (a\n"
    "data type mix it has no definition for) is noted and skipped; a\n"
    "malformed descriptor or option is reported with its file and line and\n"
    "the rest are still written (exit status 2).  Prints one line per case\n"
    "as it is made.\n"
    "\n"
    "Options:\n"
    "  -o, --output FILE   the case file to write (replaced; required unless\n"
    "                      --dry-run)\n"
    "  --dry-run           print each problem's iohw descriptor, write nothing\n"
    "  --max-macs N        skip problems of more than N multiply-adds (default\n"
    "                      1000000000; 0: no limit): the oracle computes each\n"
    "                      in extended precision.  benchdnn's --mb=1 makes\n"
    "                      large layers small\n"
    "  --threads N         oracle threads (default: the number of online CPUs)\n"
    "  -h, --help          this text\n"
    "\n"
    "Examples:\n"
    "  iohw import benchdnn --dir=FWD_B,BWD_D,BWD_WB \\\n"
    "      'g2mb2ic16ih7oc16oh14kh3sh2ph1n\"up\"' -o up.h5\n"
    "  iohw import benchdnn --mb=1 oneDNN/tests/benchdnn/inputs/deconv/shapes_2d \\\n"
    "      -o shapes_2d.h5 && iohw run --backend ./libmine.so shapes_2d.h5\n"
    "  iohw show --as benchdnn up.h5     # and back: a case as benchdnn's line\n";

#define DEFAULT_MAX_MACS 1e9

typedef struct problem {
    char *text;     /* the iohw descriptor */
    char *id;
    char *from;     /* "FILE:LINE: DESCRIPTOR" */
} problem;

typedef struct importer {
    problem *list;
    int n, cap, errors, skipped, too_big;
    double max_macs;
    char last[2 * IOHW_ERROR_MAX]; /* the last message: once per descriptor, not per --dir */
    struct {
        char why[256];
        int count;
    } reasons[32];      /* skips, by reason: the first few shown, then counted */
    int nreasons;
} importer;

#define SHOWN_PER_REASON 3

/* Counts a skip for why; 1 when its line should be shown. */
static int skip_shown(importer *im, const char *why)
{
    int i = 0;
    while (i < im->nreasons && strncmp(im->reasons[i].why, why,
                                       sizeof im->reasons[i].why - 1) != 0)
        i++;
    if (i == im->nreasons && im->nreasons < 32)
        snprintf(im->reasons[im->nreasons++].why, sizeof im->reasons[0].why, "%s", why);
    if (i == 32)
        return 1;
    return ++im->reasons[i].count <= SHOWN_PER_REASON;
}

static void say_unshown(const importer *im)
{
    for (int i = 0; i < im->nreasons; i++)
        if (im->reasons[i].count > SHOWN_PER_REASON)
            iohw_cli_error("import benchdnn: %d more skipped (not shown): %s",
                           im->reasons[i].count - SHOWN_PER_REASON, im->reasons[i].why);
}

/* Says msg unless it repeats the last one; 1 when said. */
static int say(importer *im, const char *msg)
{
    if (strcmp(im->last, msg) == 0)
        return 0;
    snprintf(im->last, sizeof im->last, "%s", msg);
    iohw_cli_error("import benchdnn: %s", msg);
    return 1;
}

static void on_note(void *ctx, int error, const char *msg)
{
    (void)ctx;
    iohw_cli_error("import benchdnn: %s%s", msg, error ? "" : " (note)");
}

/* The case id: benchdnn.<number>.<name>.<dir>.<dt>, other characters '_'. */
static char *case_id(int number, const char *name, const iohw__bdnn_setting *s)
{
    char id[IOHW_CASE_ID_MAX];
    snprintf(id, sizeof id, "benchdnn.%04d.%.40s.%s.%s", number,
             name[0] != '\0' ? name : "problem", s->dir, s->dt);
    for (char *c = id + 9; *c != '\0'; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
              (*c >= '0' && *c <= '9') || *c == '.' || *c == '-'))
            *c = '_';
    for (char *c = id; *c != '\0'; c++)
        if (*c >= 'A' && *c <= 'Z')
            *c = (char)(*c - 'A' + 'a');
    return strdup(id);
}

static int already(const importer *im, const char *text)
{
    for (int i = 0; i < im->n; i++)
        if (strcmp(im->list[i].text, text) == 0)
            return 1;
    return 0;
}

static int append(importer *im, const char *text, const iohw__bdnn_item *it,
                  const iohw__bdnn_desc *d)
{
    if (im->n == im->cap) {
        int cap = im->cap ? 2 * im->cap : 64;
        problem *l = realloc(im->list, (size_t)cap * sizeof *l);
        if (l == NULL)
            return -1;
        im->list = l;
        im->cap = cap;
    }
    problem *p = &im->list[im->n];
    size_t n = strlen(it->file) + strlen(it->desc_text) + 32;
    p->from = malloc(n);
    p->text = strdup(text);
    p->id = case_id(im->n, d->name, &it->setting);
    if (p->from == NULL || p->text == NULL || p->id == NULL) {
        free(p->from), free(p->text), free(p->id);
        return -1;
    }
    snprintf(p->from, n, "%s:%d: %s", it->file, it->line, it->desc_text);
    im->n++;
    return 0;
}

static void on_problem(void *ctx, const iohw__bdnn_item *it)
{
    importer *im = ctx;
    iohw__bdnn_desc d;
    iohw_desc check;
    iohw_error e = {{0}};
    char text[1024];
    int r = iohw__bdnn_parse_desc(it->desc_text, &d, &e);
    if (r == 0)
        r = iohw__bdnn_to_iohw(&d, &it->setting, text, sizeof text, &e);
    char msg[2 * IOHW_ERROR_MAX];
    if (r == 1) {
        snprintf(msg, sizeof msg, "%s:%d: %s skipped: %s", it->file, it->line,
                 it->desc_text, e.msg);
        if (strcmp(im->last, msg) == 0)
            return;
        im->skipped++;
        if (skip_shown(im, e.msg))
            say(im, msg);
        snprintf(im->last, sizeof im->last, "%s", msg);
        return;
    }
    if (r == 0 && iohw_desc_parse(text, &check, &e) != 0)
        r = -1;
    if (r != 0) {
        snprintf(msg, sizeof msg, "%s:%d: %s: %s", it->file, it->line, it->desc_text,
                 e.msg[0] ? e.msg : "too long");
        im->errors += say(im, msg);
        return;
    }
    if (im->max_macs > 0 && iohw_problem_macs(&check.p) > im->max_macs) {
        snprintf(msg, sizeof msg, "%s:%d: %s skipped: %.3g multiply-adds, more than "
                 "--max-macs %.3g (try --mb=1)", it->file, it->line, it->desc_text,
                 iohw_problem_macs(&check.p), im->max_macs);
        if (strcmp(im->last, msg) == 0)
            return;
        im->too_big++;
        if (skip_shown(im, "more multiply-adds than --max-macs"))
            say(im, msg);
        snprintf(im->last, sizeof im->last, "%s", msg);
        return;
    }
    if (!already(im, text) && append(im, text, it, &d) != 0) {
        im->errors++;
        iohw_cli_error("import benchdnn: out of memory");
    }
}

typedef struct options {
    const char *out;
    int dry_run, threads;
    double max_macs;
    char *words;    /* the benchdnn words, one per line */
} options;

/* A benchdnn word for the reader: an existing file is --batch=FILE. */
static int add_word(options *o, size_t *len, const char *arg)
{
    struct stat st;
    int file = arg[0] != '-' && stat(arg, &st) == 0;
    size_t n = strlen(arg) + 16;
    char *w = realloc(o->words, *len + n);
    if (w == NULL)
        return -1;
    o->words = w;
    *len += (size_t)snprintf(w + *len, n, "%s%s\n", file ? "--batch=" : "", arg);
    return 0;
}

static int parse_max_macs(const char *text, double *v)
{
    char *end;
    *v = strtod(text, &end);
    if (end == text || *end != '\0' || !(*v >= 0) || *v > 1e18)
        return iohw_cli_usage("import", "--max-macs %s: a number of multiply-adds "
                              "(0: no limit)", text);
    return 0;
}

/* 0, 1 after --help, or IOHW_EXIT_USAGE. */
static int parse_options(int argc, char **argv, options *o)
{
    size_t len = 0;
    for (int i = 1; i < argc; i++) {
        const char *v = NULL;
        int r;
        if (iohw_cli_is_help(argv[i])) {
            fputs(iohw__import_benchdnn_help, stdout);
            return 1;
        } else if ((r = iohw_cli_option("import", argc, argv, &i, "--output", "-o", &v)) != 0) {
            if (r < 0)
                return IOHW_EXIT_USAGE;
            o->out = v;
        } else if ((r = iohw_cli_option("import", argc, argv, &i, "--threads", NULL, &v)) != 0) {
            if (r < 0 || iohw_cli_parse_threads("import", v, &o->threads) != 0)
                return IOHW_EXIT_USAGE;
        } else if ((r = iohw_cli_option("import", argc, argv, &i, "--max-macs", NULL, &v)) != 0) {
            if (r < 0 || parse_max_macs(v, &o->max_macs) != 0)
                return IOHW_EXIT_USAGE;
        } else if (strcmp(argv[i], "--dry-run") == 0) {
            o->dry_run = 1;
        } else if (add_word(o, &len, argv[i]) != 0) {
            iohw_cli_error("import benchdnn: out of memory");
            return IOHW_EXIT_USAGE;
        }
    }
    if (o->words == NULL)
        return iohw_cli_usage("import", "benchdnn: no descriptor or batch file given");
    if (o->out == NULL && !o->dry_run)
        return iohw_cli_usage("import", "benchdnn: missing -o OUT.h5 (or --dry-run)");
    return 0;
}

/* Makes and writes every problem's case; a problem the generators refuse
 * is reported and left out.  The file is written whole or not at all. */
static int write_cases(const options *o, importer *im)
{
    iohw_error e;
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.part", o->out);
    iohw_case_file *f = iohw_case_file_create(tmp, &e);
    if (f == NULL) {
        iohw_cli_error("import benchdnn: %s", e.msg);
        return IOHW_EXIT_USAGE;
    }
    int written = 0;
    for (int i = 0; i < im->n; i++) {
        iohw_desc d;
        iohw_case c;
        if (iohw_desc_parse(im->list[i].text, &d, &e) != 0 ||
            iohw_make_case(&d, im->list[i].id, "benchdnn", o->threads, &c, &e) != 0) {
            im->errors++;
            iohw_cli_error("import benchdnn: %s: %s", im->list[i].from, e.msg);
            continue;
        }
        int w = iohw_case_file_write(f, &c, &e);
        iohw_case_free(&c);
        if (w != 0) {
            iohw_cli_error("import benchdnn: %s: %s", o->out, e.msg);
            iohw_case_file_close(f, NULL);
            unlink(tmp);
            return IOHW_EXIT_USAGE;
        }
        printf("%s:%s  %s  (%s)\n", o->out, im->list[i].id, im->list[i].text,
               im->list[i].from);
        fflush(stdout);
        written++;
    }
    if (iohw_case_file_close(f, &e) != 0 || rename(tmp, o->out) != 0) {
        iohw_cli_error("import benchdnn: %s: %s", o->out, e.msg);
        unlink(tmp);
        return IOHW_EXIT_USAGE;
    }
    printf("wrote %d case(s) to %s\n", written, o->out);
    return IOHW_EXIT_OK;
}

static void free_importer(importer *im)
{
    for (int i = 0; i < im->n; i++)
        free(im->list[i].text), free(im->list[i].id), free(im->list[i].from);
    free(im->list);
}

int iohw__import_benchdnn(int argc, char **argv)
{
    options o = {NULL, 0, iohw_cli_default_threads(), DEFAULT_MAX_MACS, NULL};
    int r = parse_options(argc, argv, &o);
    if (r != 0) {
        free(o.words);
        return r == 1 ? IOHW_EXIT_OK : IOHW_EXIT_USAGE;
    }
    importer im = {0};
    im.max_macs = o.max_macs;
    iohw__bdnn_sink sink = {on_problem, on_note, &im};
    im.errors += iohw__bdnn_read("command line", o.words, &sink);
    free(o.words);
    say_unshown(&im);
    int status = IOHW_EXIT_OK;
    if (im.n == 0) {
        iohw_cli_error("import benchdnn: no problem to write (%d skipped, %d too large, "
                       "%d malformed)", im.skipped, im.too_big, im.errors);
        status = IOHW_EXIT_USAGE;
    } else if (o.dry_run) {
        for (int i = 0; i < im.n; i++)
            printf("%s\t%s\t%s\n", im.list[i].id, im.list[i].text, im.list[i].from);
    } else {
        status = write_cases(&o, &im);
    }
    if (status == IOHW_EXIT_OK && (im.skipped || im.too_big || im.errors))
        iohw_cli_error("import benchdnn: %d problem(s); %d skipped (no iohw definition), "
                       "%d too large, %d malformed", im.n, im.skipped, im.too_big,
                       im.errors);
    free_importer(&im);
    return status == IOHW_EXIT_OK && im.errors > 0 ? IOHW_EXIT_USAGE : status;
}
