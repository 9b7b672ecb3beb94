/*
 * cli/import_onnx.c - `iohw import onnx DIR... -o OUT.h5`: ONNX node-test
 * folders (model.onnx whose graph is one ConvTranspose, and
 * test_data_set_N/input_I.pb, output_0.pb) into iohw cases carrying ONNX's
 * inputs and the oracle's outputs, with a line per test saying whether
 * ONNX's expected output agrees with the oracle as a backend's output is
 * judged (specification section 3.3).  A plain model.onnx whose X, W and
 * B are initializers is imported without a comparison.
 */
#include "cli/cli.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cases/case.h"
#include "cli/import.h"
#include "cli/import_onnx.h"
#include "generators/generators.h"
#include "oracle/problem.h"

#define FILE_MAX ((size_t)1 << 30)
#define PATH_LEN 4096

const char iohw__import_onnx_help[] =
    "Usage: iohw import onnx DIR... -o OUT.h5 [--threads N]\n"
    "\n"
    "Reads ONNX node-test folders: DIR/model.onnx, a graph of one ConvTranspose\n"
    "node (any opset; strides, dilations, pads, output_padding, kernel_shape,\n"
    "group, auto_pad, output_shape), and DIR/test_data_set_N/input_I.pb (the\n"
    "graph's inputs that are not initializers, in order) and output_0.pb.  DIR\n"
    "may also name model.onnx itself; a model without test_data_set_0 must hold\n"
    "X and W (and B) as initializers.  Writes one case per data set, id\n"
    "DIRNAME_N, with ONNX's x, w and bias and the oracle's y, y_f64 and\n"
    "err_bound, and prints per data set whether ONNX's expected output agrees\n"
    "with the oracle as 'iohw run' judges a backend (specification section 3.3;\n"
    "a disagreement is a finding and is printed with the first element that\n"
    "differs; it is not an error).\n"
    "auto_pad and output_shape are kept as conv=onnx (specification section\n"
    "12).  FLOAT, DOUBLE, FLOAT16 and BFLOAT16 tensors are imported (one type\n"
    "for X, W, B and Y; other than FLOAT from raw_data).  A folder that cannot be imported\n"
    "is reported (file and field) and skipped; the exit status is then 2.\n"
    "\n"
    "Options:\n"
    "  -o, --output FILE   the case file to write (required)\n"
    "  --threads N         oracle threads (default: the number of online CPUs)\n"
    "  -h, --help          this text\n"
    "\n"
    "Example:\n"
    "  iohw import onnx /usr/share/libonnx-testdata/data/node/test_convtranspose* "
    "-o onnx.h5\n";

/* The whole file into *buf (malloc'd); 0 or -1. */
static int slurp(const char *path, uint8_t **buf, size_t *n, iohw_error *err)
{
    FILE *f = fopen(path, "rb");
    struct stat st;
    *buf = NULL;
    if (f == NULL)
        return iohw_error_set(err, "%s: cannot open", path);
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size > FILE_MAX) {
        fclose(f);
        return iohw_error_set(err, "%s: not a regular file of at most 1 GiB", path);
    }
    *n = (size_t)st.st_size;
    *buf = malloc(*n > 0 ? *n : 1);
    if (*buf == NULL || fread(*buf, 1, *n, f) != *n) {
        fclose(f);
        free(*buf);
        *buf = NULL;
        return iohw_error_set(err, "%s: cannot read", path);
    }
    fclose(f);
    return 0;
}

/* One test folder: the model, its file buffers and where its tensors are. */
typedef struct onnx_test {
    char dir[PATH_LEN];
    char name[64];
    uint8_t *model_buf;
    size_t model_n;
    iohw__pb_model m;
    uint8_t *buf[4];       /* input files of the data set and output_0.pb */
    iohw__pb_tensor t[3];  /* X, W, B */
    iohw__pb_tensor y;
} onnx_test;

static void test_free_set(onnx_test *t)
{
    for (int i = 0; i < 4; i++) {
        free(t->buf[i]);
        t->buf[i] = NULL;
    }
}

/* The folder, model path and case-id stem of arg. */
static int test_open(const char *arg, onnx_test *t, iohw_error *err)
{
    char path[PATH_LEN + 16];
    size_t len = strlen(arg);
    memset(t, 0, sizeof *t);
    if (len >= PATH_LEN)
        return iohw_error_set(err, "%.64s...: path too long", arg);
    memcpy(t->dir, arg, len + 1);
    while (len > 1 && t->dir[len - 1] == '/')
        t->dir[--len] = '\0';
    if (len >= 11 && strcmp(t->dir + len - 11, "/model.onnx") == 0)
        t->dir[len - 11] = '\0';
    const char *base = strrchr(t->dir, '/');
    base = base != NULL ? base + 1 : t->dir;
    size_t j = 0;
    for (; *base != '\0' && j + 1 < sizeof t->name; base++)
        t->name[j++] = (char)((*base >= 'a' && *base <= 'z') || (*base >= 'A' && *base <= 'Z') ||
                                      (*base >= '0' && *base <= '9') || *base == '-'
                                  ? *base
                                  : '_');
    if (j == 0)
        t->name[j++] = 'm';
    t->name[j] = '\0';
    snprintf(path, sizeof path, "%s/model.onnx", t->dir);
    if (slurp(path, &t->model_buf, &t->model_n, err) != 0 ||
        iohw__pb_model_parse(t->model_buf, t->model_n, &t->m, err) != 0)
        return iohw_error_prefix(err, "%s", path);
    const iohw__pb_node *nd = &t->m.node;
    if (t->m.nnodes != 1)
        return iohw_error_set(err, "%s: GraphProto.node: %d nodes; only a graph of one "
                              "ConvTranspose is imported", path, t->m.nnodes);
    if (!iohw__pb_is(nd->op_type, "ConvTranspose") ||
        (nd->domain.n > 0 && !iohw__pb_is(nd->domain, "ai.onnx")))
        return iohw_error_set(err, "%s: NodeProto.op_type '%.*s': only ConvTranspose (of "
                              "the default domain) is imported", path,
                              (int)(nd->op_type.n > 40 ? 40 : nd->op_type.n), nd->op_type.p);
    if (nd->ninput < 2 || nd->ninput > 3)
        return iohw_error_set(err, "%s: NodeProto.input: %d inputs; ConvTranspose takes X, "
                              "W and an optional B", path, nd->ninput);
    return 0;
}

/* Node input i from the initializers or from data set `set`. */
static int find_input(onnx_test *t, int i, const char *set, iohw_error *err)
{
    const iohw__pb_bytes name = t->m.node.input[i];
    for (int k = 0; k < t->m.ninit; k++)
        if (t->m.init[k].name.n == name.n && memcmp(t->m.init[k].name.p, name.p, name.n) == 0) {
            t->t[i] = t->m.init[k];
            return 0;
        }
    int pos = 0;
    for (int k = 0; k < t->m.ninput; k++) {
        const iohw__pb_bytes g = t->m.input[k];
        int is_init = 0;
        for (int j = 0; j < t->m.ninit; j++)
            is_init |= t->m.init[j].name.n == g.n && memcmp(t->m.init[j].name.p, g.p, g.n) == 0;
        if (is_init)
            continue;
        if (g.n == name.n && memcmp(g.p, name.p, g.n) == 0) {
            char path[PATH_LEN + 64];
            size_t n;
            if (set == NULL)
                return iohw_error_set(err, "%s: input '%.*s' is neither an initializer nor "
                                      "in a test_data_set_0 folder", t->dir,
                                      (int)(name.n > 40 ? 40 : name.n), name.p);
            snprintf(path, sizeof path, "%s/input_%d.pb", set, pos);
            if (slurp(path, &t->buf[i], &n, err) != 0 ||
                iohw__pb_tensor_parse(t->buf[i], n, &t->t[i], err) != 0)
                return iohw_error_prefix(err, "%s", path);
            return 0;
        }
        pos++;
    }
    return iohw_error_set(err, "%s/model.onnx: ConvTranspose input '%.*s' is not a graph "
                          "input or initializer", t->dir, (int)(name.n > 40 ? 40 : name.n),
                          name.p);
}

/* The case of the current data set: problem, inputs, oracle. */
static int make_case(onnx_test *t, int set, int threads, iohw_case *c, iohw_error *err)
{
    const int has_bias = t->m.node.ninput == 3 && t->m.node.input[2].n > 0;
    const int32_t dt = iohw__onnx_dtype_of(t->t[0].data_type);
    memset(c, 0, sizeof *c);
    snprintf(c->id, sizeof c->id, "%s_%d", t->name, set);
    if (dt == 0)
        return iohw_error_set(err, "%s: input X: TensorProto.data_type = %" PRId32 ": FLOAT "
                              "(1), DOUBLE (11), FLOAT16 (10) or BFLOAT16 (16) are imported",
                              t->dir, t->t[0].data_type);
    if (iohw__onnx_problem(&t->m.node, &t->t[0], &t->t[1], has_bias, &c->p, err) != 0)
        return iohw_error_prefix(err, "%s/model.onnx: ConvTranspose", t->dir);
    c->p.dtype = dt;
    if ((c->x = iohw__onnx_values_of(&t->t[0], dt, iohw_problem_x_count(&c->p), "input X", err)) == NULL ||
        (c->w = iohw__onnx_values_of(&t->t[1], dt, iohw_problem_w_count(&c->p), "input W", err)) == NULL ||
        (has_bias &&
         (c->bias = iohw__onnx_values_of(&t->t[2], dt, c->p.out_channels, "input B", err)) == NULL))
        return iohw_error_prefix(err, "%s", t->dir);
    if (iohw_complete_case(c, threads, err) != 0)
        return iohw_error_prefix(err, "%s", t->dir);
    return 0;
}

/* Prints whether ONNX's expected output agrees with the oracle; 1 when it
 * does, 0 when not, -1 when the expected output cannot be read. */
static int compare(const onnx_test *t, const iohw_case *c, const char *where, iohw_error *err)
{
    const int64_t n = iohw_problem_out_count(&c->p);
    const int R = (int)c->p.rank;
    int same = t->y.ndims == R + 2 && t->y.dims[0] == c->p.batch &&
               t->y.dims[1] == c->p.out_channels;
    for (int a = 0; same && a < R; a++)
        same = t->y.dims[2 + a] == c->p.out_size[a];
    if (!same) {
        printf("%s: %s: DISAGREES: ONNX's output_0 has dims", where, c->id);
        for (int i = 0; i < t->y.ndims; i++)
            printf("%s%" PRId64, i ? "x" : " ", t->y.dims[i]);
        printf(", the oracle's y %" PRId64 "x%" PRId64, c->p.batch, c->p.out_channels);
        for (int a = 0; a < R; a++)
            printf("x%" PRId64, c->p.out_size[a]);
        printf("\n");
        return 0;
    }
    void *y = iohw__onnx_values_of(&t->y, c->p.dtype, n, "output_0", err);
    if (y == NULL)
        return -1;
    const int agrees = iohw__onnx_judge(c, y, where);
    free(y);
    if (agrees < 0)
        return iohw_error_set(err, "out of memory");
    return agrees;
}

/* Counts of one run. */
typedef struct tally {
    int written, agree, disagree, bad;
} tally;

/* Data set `set` of t (set < 0: the initializers, no data set). */
static int import_set(onnx_test *t, int set, int threads, iohw_case_file *fout, tally *n,
                      iohw_error *err)
{
    char dir[PATH_LEN + 32], path[PATH_LEN + 64];
    iohw_case c;
    size_t len;
    snprintf(dir, sizeof dir, "%s/test_data_set_%d", t->dir, set);
    for (int i = 0; i < t->m.node.ninput; i++)
        if (t->m.node.input[i].n > 0 && find_input(t, i, set < 0 ? NULL : dir, err) != 0)
            return -1;
    if (make_case(t, set < 0 ? 0 : set, threads, &c, err) != 0) {
        iohw_case_free(&c);
        return -1;
    }
    int agreed = 2;
    if (set >= 0) {
        snprintf(path, sizeof path, "%s/output_0.pb", dir);
        if (slurp(path, &t->buf[3], &len, err) != 0 ||
            iohw__pb_tensor_parse(t->buf[3], len, &t->y, err) != 0 ||
            (agreed = compare(t, &c, dir, err)) < 0) {
            iohw_case_free(&c);
            return iohw_error_prefix(err, "%s", path);
        }
    } else {
        printf("%s: %s: imported (no test_data_set_0: nothing to compare)\n", t->dir, c.id);
    }
    if (iohw_case_file_write(fout, &c, err) != 0) {
        iohw_case_free(&c);
        return -2;
    }
    iohw_case_free(&c);
    n->written++;
    n->agree += agreed == 1;
    n->disagree += agreed == 0;
    return 0;
}

/* Every data set of one folder; -2 when the output failed. */
static int import_dir(const char *arg, int threads, iohw_case_file *fout, tally *n)
{
    static onnx_test t;
    iohw_error e;
    int rc = 0;
    if (test_open(arg, &t, &e) != 0) {
        iohw_cli_error("import onnx: %s", e.msg);
        n->bad++;
        free(t.model_buf);
        return 0;
    }
    for (int set = 0;; set++) {
        char dir[PATH_LEN + 32];
        struct stat st;
        snprintf(dir, sizeof dir, "%s/test_data_set_%d", t.dir, set);
        const int exists = stat(dir, &st) == 0 && S_ISDIR(st.st_mode);
        if (!exists && set > 0)
            break;
        rc = import_set(&t, exists ? set : -1, threads, fout, n, &e);
        test_free_set(&t);
        if (rc != 0) {
            iohw_cli_error("import onnx: %s", e.msg);
            n->bad++;
        }
        if (rc == -2 || !exists)
            break;
    }
    free(t.model_buf);
    return rc == -2 ? -2 : 0;
}

int iohw__import_onnx(int argc, char **argv)
{
    const char *out = NULL;
    int threads = iohw_cli_default_threads(), ndirs = 0;
    for (int i = 1; i < argc; i++) {
        const char *v = NULL;
        int r;
        if (iohw_cli_is_help(argv[i])) {
            fputs(iohw__import_onnx_help, stdout);
            return IOHW_EXIT_OK;
        }
        if ((r = iohw_cli_option("import", argc, argv, &i, "--output", "-o", &v)) != 0) {
            if (r < 0)
                return IOHW_EXIT_USAGE;
            out = v;
        } else if ((r = iohw_cli_option("import", argc, argv, &i, "--threads", NULL, &v)) != 0) {
            if (r < 0 || iohw_cli_parse_threads("import", v, &threads) != 0)
                return IOHW_EXIT_USAGE;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            return iohw_cli_unknown_option("import", argv[i], iohw__import_onnx_help);
        } else {
            argv[ndirs++] = argv[i];  /* the folders, in order, at the front */
        }
    }
    if (ndirs == 0)
        return iohw_cli_usage("import", "onnx: give at least one test folder");
    if (out == NULL)
        return iohw_cli_usage("import", "onnx: missing -o OUT.h5");
    iohw_error e;
    iohw_case_file *fout = iohw_case_file_create(out, &e);
    if (fout == NULL) {
        iohw_cli_error("import onnx: %s", e.msg);
        return IOHW_EXIT_USAGE;
    }
    tally n = {0, 0, 0, 0};
    for (int i = 0; i < ndirs; i++)
        if (import_dir(argv[i], threads, fout, &n) != 0) {
            iohw_case_file_abandon(fout);
            return IOHW_EXIT_USAGE;
        }
    if (n.written == 0) {
        iohw_case_file_abandon(fout);
        iohw_cli_error("import onnx: nothing imported; %s not written", out);
        return IOHW_EXIT_USAGE;
    }
    if (iohw_case_file_close(fout, &e) != 0) {
        iohw_cli_error("import onnx: %s", e.msg);
        return IOHW_EXIT_USAGE;
    }
    printf("imported %d, agree %d, disagree %d, not imported %d; written to %s\n", n.written,
           n.agree, n.disagree, n.bad, out);
    return n.bad > 0 ? IOHW_EXIT_USAGE : IOHW_EXIT_OK;
}
