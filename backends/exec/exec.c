/*
 * backends/exec/exec.c - a backend that runs an external program
 * (libiohw_exec.so), exchanging HDF5 files with it.  The protocol is
 * docs/EXEC_PROTOCOL.md; in short, with PROGRAM the words of the
 * environment variable IOHW_EXEC_COMMAND (read by init):
 *
 *   PROGRAM --describe                its name, version, protocols and
 *                                     layouts, asked once by init
 *   protocol 1, a process per call:
 *   PROGRAM --supports IN.h5 OUT.h5   asked once per problem class
 *   PROGRAM IN.h5 OUT.h5              per case: OUT.h5 gets y (or, for
 *                                     a backward case, dx, or dw and db)
 *   protocol 2, one process per context:
 *   PROGRAM --serve                   requests in on stdin, replies out on
 *                                     stdout (exec_serve.c)
 *   protocol 3: protocol 2 with --describe keys for per-problem supports
 *   (supports=problem) and a fresh program per case (restart=each)
 *
 * A program computes the backward directions (specification section 13)
 * only when its --describe answer opts in (directions=fwd bwd_d bwd_w);
 * without it, backward problems are refused before it is asked.
 *
 * Protocol 2 (or 3) is used when IOHW_EXEC_PROTOCOL is 2 (or 3), or when
 * it is unset and the program's --describe answer lists it.  A serving
 * program that ends in the middle of a request takes its caller (the
 * harness worker) along, the same way (signal or exit status), so that the
 * case is a CRASH; the next worker starts a fresh program.  One that hangs
 * is the harness's TIMEOUT (the program dies with the worker).  One that
 * fails a request is replaced before the next (exec_ask.c); with
 * restart=each (or IOHW_EXEC_RESTART=each) after every case.
 *
 * A problem class is what a program's support usually depends on
 * (exec_class.c); the answers are cached in the context (the last
 * EXEC_CLASS_MAX classes, or problems for supports=problem;
 * exec_supports.c).  A query that fails is IOHW_BACKEND_ERROR, not a
 * refusal.  No text is cut to a fixed size here (exec_text.c).
 *
 * The files live in a private directory made by init (mkdtemp in $TMPDIR or
 * /tmp) and removed by fini; nothing is global but the table's name and
 * version, which init fills in from the program's --describe answer.
 */
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backends/exec/exec.h"
#include "backends/skeleton_check.h"
#include "iohw/backend.h"
#include "oracle/descriptor.h"
#include "oracle/dtype.h"
#include "oracle/error.h"
#include "oracle/problem.h"
#include "oracle/quant_problem.h"

/* The table's name and version: "exec" until init fills them in
 * (malloc'd then, whole). */
static char *table_name_text, *table_version_text;
static iohw_backend exec_table;

/* When the library is unloaded. */
__attribute__((destructor)) static void free_table_text(void)
{
    free(table_name_text);
    free(table_version_text);
    table_name_text = table_version_text = NULL;
}
/* --- init and fini -------------------------------------------------------- */

/* The program in messages: the script for an interpreter and its script
 * ("python3 prog.py"), else the first word. */
static void set_label(exec_ctx *c)
{
    static const char *const interpreters[] = {"python", "node", "sh", "bash",
                                               "perl", "ruby", "deno", "julia"};
    const char *w = c->cmd.argv[0], *base = strrchr(w, '/');
    base = base != NULL ? base + 1 : w;
    for (size_t i = 0; i < sizeof interpreters / sizeof interpreters[0]; i++)
        if (strncmp(base, interpreters[i], strlen(interpreters[i])) == 0 &&
            c->cmd.argc > 1 && c->cmd.argv[1][0] != '-')
            w = c->cmd.argv[1];
    c->label = strdup(w);
    c->server.label = c->label != NULL ? c->label : "the program";
}

/* The protocol IOHW_EXEC_PROTOCOL asks for (1, 2 or 3), else 0. */
static int protocol_wanted(void)
{
    const char *want = getenv("IOHW_EXEC_PROTOCOL");
    if (want == NULL || want[0] == '\0' || want[1] != '\0')
        return 0;
    return want[0] >= '1' && want[0] <= '3' ? want[0] - '0' : 0;
}

/* The --describe answer, malloc'd ("" when there is none). */
static char *describe_text(exec_ctx *c, int want)
{
    char *text = NULL;
    if (want >= 2) {
        c->protocol = want;
        if (iohw__exec_ask2(c, "describe", 0, &text) != EXEC_ANSWER_OK) {
            free(text);
            text = NULL;
        }
    } else {
        static const char *const extra[] = {"--describe", NULL};
        char *msg = NULL;
        text = malloc(EXEC_MSG_MAX + 1);
        if (text != NULL && iohw__exec_spawn(&c->cmd, extra, text,
                                             EXEC_MSG_MAX + 1, NULL, NULL,
                                             &msg) != 0)
            text[0] = '\0';
        free(msg);
    }
    return text != NULL ? text : strdup("");
}

/* Asks --describe; chooses the protocol and when to restart; names the
 * table. */
static void describe(exec_ctx *c)
{
    const int want = protocol_wanted();
    const char *restart = getenv("IOHW_EXEC_RESTART");
    char *text = describe_text(c, want);
    c->protocol = want > 0 ? want : 1;
    if (text == NULL || iohw__exec_about_parse(text, &c->about) != 0) {
        iohw__exec_about_free(&c->about);
        iohw__exec_about_parse("", &c->about);
    }
    free(text);
    if (want == 0)
        c->protocol = c->about.protocol3 ? 3 : c->about.protocol2 ? 2 : 1;
    c->restart = c->about.restart_each ? EXEC_RESTART_EACH
                                       : EXEC_RESTART_FAILURE;
    if (restart != NULL && restart[0] != '\0')
        c->restart = strcmp(restart, "each") == 0 ? EXEC_RESTART_EACH
                                                  : EXEC_RESTART_FAILURE;
    if (c->protocol >= 2)
        iohw__exec_serve_start(&c->server, &c->cmd, &c->msg);

    /* The protocol before the command, so that a version cut short by a
     * reader still names it. */
    const char *base = strrchr(c->server.label, '/');
    base = base != NULL ? base + 1 : c->server.label;
    free(table_name_text);
    free(table_version_text);
    table_name_text = iohw__exec_fmt("exec:%s", c->about.name[0]
                                                    ? c->about.name : base);
    table_version_text = iohw__exec_fmt(
        "%s (exec protocol %d; %s)", c->about.version[0]
            ? c->about.version : "no version: no --describe answer",
        c->protocol, getenv("IOHW_EXEC_COMMAND"));
    exec_table.name = table_name_text != NULL ? table_name_text : "exec";
    exec_table.version = table_version_text != NULL ? table_version_text
                                                    : "exec";
}

/* Frees what the context holds (the program stopped first). */
static void free_ctx(exec_ctx *c)
{
    iohw__exec_serve_stop(&c->server);
    if (c->dir != NULL) {
        unlink(c->in);
        unlink(c->out);
        unlink(c->server.log_path);
        rmdir(c->dir);
    }
    iohw__exec_forget_answers(c);
    iohw__exec_about_free(&c->about);
    iohw__exec_cmd_free(&c->cmd);
    free(c->cmd_why);
    free(c->label);
    free(c->dir);
    free(c->in);
    free(c->out);
    free(c->server.log_path);
    free(c->msg);
    free(c);
}

/* The private directory and the paths in it; -1 when it cannot be made. */
static int make_dir(exec_ctx *c)
{
    const char *tmp = getenv("TMPDIR");
    if (tmp == NULL || tmp[0] == '\0')
        tmp = "/tmp";
    char *dir = iohw__exec_fmt("%s/iohw-exec-XXXXXX", tmp);
    if (dir == NULL || strchr(tmp, '\n') != NULL || mkdtemp(dir) == NULL) {
        free(dir);
        return -1;
    }
    c->dir = dir;
    c->in = iohw__exec_fmt("%s/IN.h5", dir);
    c->out = iohw__exec_fmt("%s/OUT.h5", dir);
    c->server.log_path = iohw__exec_fmt("%s/stderr", dir);
    return c->in != NULL && c->out != NULL && c->server.log_path != NULL
               ? 0 : -1;
}

static int exec_init(void **ctx)
{
    exec_ctx *c = calloc(1, sizeof *c);
    if (c == NULL)
        return IOHW_OUT_OF_MEMORY;
    c->server.req = c->server.rep = c->server.log = -1;
    c->server.label = "the program";

    /* The command; without one every problem is refused (with why). */
    c->cmd_ok = iohw__exec_cmd_parse(getenv("IOHW_EXEC_COMMAND"), &c->cmd,
                                     &c->cmd_why) == 0;
    if (make_dir(c) != 0) {
        free_ctx(c);
        return IOHW_BACKEND_ERROR;
    }
    if (c->cmd_ok) {
        set_label(c);
        describe(c);
    }
    *ctx = c;
    return IOHW_OK;
}

static void exec_fini(void *ctx)
{
    if (ctx != NULL)
        free_ctx(ctx);
}

static const char *exec_last_error(void *ctx)
{
    const exec_ctx *c = ctx;
    return c == NULL ? "" : c->msg != NULL ? c->msg : "";
}

static int exec_supports(void *ctx, const iohw_problem *p)
{
    return ctx != NULL ? iohw__exec_supports(ctx, p) : IOHW_UNSUPPORTED;
}

/* --- run() ---------------------------------------------------------------- */

/* The entry points (specification section 13): what the host called. */
enum { CALL_RUN, CALL_QUANT, CALL_BWD_DATA, CALL_BWD_WEIGHTS };

/* IOHW_INVALID_PROBLEM (c->err says why) when p is not a problem of the
 * entry point called; else IOHW_OK. */
static int call_fits(exec_ctx *c, int call, const iohw_problem *p)
{
    static const char *const names[] = {"run", "run_quant", "run_bwd_data",
                                        "run_bwd_weights"};
    static const int32_t dirs[] = {IOHW_DIR_FWD, IOHW_DIR_FWD, IOHW_DIR_BWD_D,
                                   IOHW_DIR_BWD_W};
    if (p->direction != dirs[call])
        return iohw__exec_say(&c->msg, "%s: the problem's direction is %s",
                              names[call], iohw_direction_name(p)),
               IOHW_INVALID_PROBLEM;
    if (call <= CALL_QUANT && iohw_problem_is_quant(p) != (call == CALL_QUANT))
        return iohw__exec_say(&c->msg, "%s: dtype %s is %s", names[call],
                              iohw_dtype_name(p->dtype), call == CALL_QUANT ?
                              "not quantized" : "quantized (run_quant "
                              "computes it)"),
               IOHW_INVALID_PROBLEM;
    return IOHW_OK;
}

/* The name of the first NULL argument of a call (in0, in1, bias, requant,
 * out), or NULL. */
static const char *null_argument(int call, const iohw_problem *p,
                                 const void *in0, const void *in1,
                                 const void *bias, const void *requant,
                                 const void *out)
{
    static const char *const in0_names[] = {"x", "x", "dy", "x"};
    static const char *const in1_names[] = {"w", "w", "w", "dy"};
    static const char *const out_names[] = {"y", "y", "dx", "dw"};
    if (in0 == NULL)
        return in0_names[call];
    if (in1 == NULL)
        return in1_names[call];
    if (out == NULL)
        return out_names[call];
    if (call == CALL_BWD_WEIGHTS)
        return p->has_bias && bias == NULL ? "db" : NULL;
    if (call == CALL_BWD_DATA)
        return NULL;
    if (p->has_bias && bias == NULL)
        return "bias";
    return iohw_quant_requant_count(p) > 0 && requant == NULL ? "requant"
                                                              : NULL;
}

/* Every entry point: call says which the host called (a problem of
 * another kind is invalid there).  in0 and in1 are the direction's inputs
 * (x and w, dy and w, x and dy); out gets its output (y, dx, or dw with
 * db right after it, copied to db). */
static int run_program(exec_ctx *c, int call, const iohw_problem *p,
                       const void *in0, const void *in1, const void *bias,
                       const void *requant, void *out, void *db)
{
    int rc = IOHW_BACKEND_ERROR;
    iohw_error e;

    /* Test the arguments. */
    if (c == NULL)
        return IOHW_BACKEND_ERROR;
    if (!c->cmd_ok)
        return iohw__exec_say(&c->msg, "%s", iohw__exec_text(c->cmd_why)),
               IOHW_UNSUPPORTED;
    if (skeleton_check(p, &e) != 0)
        return iohw__exec_say(&c->msg, "%s", e.msg), IOHW_INVALID_PROBLEM;
    if (call_fits(c, call, p) != IOHW_OK)
        return IOHW_INVALID_PROBLEM;
    if (iohw__exec_kind_declared(c, p) != IOHW_OK)
        return IOHW_UNSUPPORTED;
    const char *missing = null_argument(call, p, in0, in1,
                                        call == CALL_BWD_WEIGHTS ? db : bias,
                                        requant, out);
    if (missing != NULL)
        return iohw__exec_say(&c->msg, "%s: %s is NULL", call == CALL_BWD_DATA
                              ? "run_bwd_data" : call == CALL_BWD_WEIGHTS
                              ? "run_bwd_weights" : "run", missing),
               IOHW_INVALID_PROBLEM;

    /* IN.h5, the program, OUT.h5 (dw and db read into one buffer). */
    void *got_out = out;
    const int split = call == CALL_BWD_WEIGHTS && p->has_bias;
    const size_t esize = iohw_dtype_size(p->dtype);
    if (split && (got_out = malloc((size_t)iohw_problem_out_count(p) *
                                   esize)) == NULL)
        return iohw__exec_say(&c->msg, "out of memory"), IOHW_OUT_OF_MEMORY;
    unlink(c->out);
    if (iohw__exec_write_input(c->in, p, in0, in1, bias, requant, &e) != 0) {
        iohw__exec_say(&c->msg, "exec: writing the input: %s", e.msg);
        goto done;
    }
    rc = iohw__exec_compute(c, p, got_out);
    if (rc != 0)
        goto done;
    if (split) {
        const size_t nw = (size_t)iohw_problem_w_count(p) * esize;
        memcpy(out, got_out, nw);
        memcpy(db, (char *)got_out + nw, (size_t)p->out_channels * esize);
    }
    iohw__exec_say(&c->msg, "%s", "");
    rc = IOHW_OK;
done:
    if (got_out != out)
        free(got_out);
    unlink(c->in);
    unlink(c->out);
    return rc;
}

static int exec_run(void *ctx, const iohw_problem *p, const void *x,
                    const void *w, const void *bias, void *y)
{
    return run_program(ctx, CALL_RUN, p, x, w, bias, NULL, y, NULL);
}

/* A quantized problem (specification section 11): IN.h5 carries the
 * quantization block and the requant values, OUT.h5's y is of y_dtype. */
static int exec_run_quant(void *ctx, const iohw_problem *p, const void *x,
                          const void *w, const void *bias, const void *requant,
                          void *y)
{
    return run_program(ctx, CALL_QUANT, p, x, w, bias, requant, y, NULL);
}

/* The backward directions (specification section 13), for a program that
 * opts in (directions= in its --describe answer): IN.h5 holds dy and w, or
 * x and dy; OUT.h5 dx, or dw and (with bias) db. */
static int exec_run_bwd_data(void *ctx, const iohw_problem *p, const void *dy,
                             const void *w, void *dx)
{
    return run_program(ctx, CALL_BWD_DATA, p, dy, w, NULL, NULL, dx, NULL);
}

static int exec_run_bwd_weights(void *ctx, const iohw_problem *p,
                                const void *x, const void *dy, void *dw,
                                void *db)
{
    return run_program(ctx, CALL_BWD_WEIGHTS, p, x, dy, NULL, NULL, dw, db);
}

static iohw_backend exec_table = {
    .abi_version = IOHW_ABI_VERSION,
    .struct_size = sizeof(iohw_backend),
    .name = "exec",
    .version = "exec (IOHW_EXEC_COMMAND; docs/EXEC_PROTOCOL.md)",
    .init = exec_init,
    .fini = exec_fini,
    .supports = exec_supports,
    .run = exec_run,
    .last_error = exec_last_error,
    .run_quant = exec_run_quant,
    .run_bwd_data = exec_run_bwd_data,
    .run_bwd_weights = exec_run_bwd_weights,
};

SKELETON_ENTRY(exec_table)
