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
 *
 * A program computes the backward directions (specification section 13)
 * only when its --describe answer opts in (directions=fwd bwd_d bwd_w);
 * without it, backward problems are refused before it is asked.
 *
 * Protocol 2 is used when IOHW_EXEC_PROTOCOL is 2, or when it is unset and
 * the program's --describe answer lists protocol 2.  A protocol 2 program
 * that ends in the middle of a request takes its caller (the harness
 * worker) along, the same way (signal or exit status), so that the case is
 * a CRASH; the next worker starts a fresh program.  One that hangs is the
 * harness's TIMEOUT (the program dies with the worker).
 *
 * A problem class is what a program's support usually depends on
 * (exec_class.c); the answers are cached in the context (the last CLASS_MAX
 * classes).  A query that fails is IOHW_BACKEND_ERROR, not a refusal.
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

#define CLASS_MAX 64

typedef struct exec_ctx {
    exec_cmd cmd;
    int cmd_ok;
    char cmd_why[256];
    int protocol;            /* 1 or 2 */
    exec_about about;
    exec_server server;
    char dir[PATH_MAX];
    char in[PATH_MAX + 16];
    char out[PATH_MAX + 16];
    exec_class classes[CLASS_MAX];
    int nclasses;
    int next;                /* the slot to replace when full */
    iohw_error err;
} exec_ctx;

static char table_name[128] = "exec";
static char table_version[512] =
    "exec protocol 1 (IOHW_EXEC_COMMAND; docs/EXEC_PROTOCOL.md)";

/* --- protocol 2 ----------------------------------------------------------- */

enum { ANSWER_OK, ANSWER_UNSUPPORTED, ANSWER_ERROR, ANSWER_FAILED };

/* The program ended in the middle of a request: so does this process,
 * the same way, after removing the private files (see the top). */
static void die_with_program(exec_ctx *c)
{
    /* A first line short enough to be quoted whole, then the details. */
    const char *base = strrchr(c->server.label, '/');
    const exec_watch *w = &c->server.watch;
    char how[96];
    iohw__exec_how(c->server.status, how, sizeof how);
    base = base != NULL ? base + 1 : c->server.label;
    if (w->over > 0)
        fprintf(stderr, "exec: %.40s: resident memory %lld MiB > limit %lld "
                "MiB, killed\n", base, (long long)(w->over >> 20),
                (long long)(w->limit >> 20));
    else
        fprintf(stderr, "exec: %.40s %s\n", base, how);
    fprintf(stderr, "exec: %s\n", c->err.msg);
    fflush(stderr);
    unlink(c->in);
    unlink(c->out);
    unlink(c->server.log_path);
    rmdir(c->dir);
    const int st = c->server.status;
    if (WIFSIGNALED(st)) {
        signal(WTERMSIG(st), SIG_DFL);
        raise(WTERMSIG(st));
    }
    _exit(WIFEXITED(st) && WEXITSTATUS(st) != 0 ? WEXITSTATUS(st) : 1);
}

/* One request ("describe", or VERB IN OUT).  ANSWER_OK, ANSWER_UNSUPPORTED
 * (the reason in c->err) or ANSWER_ERROR (the program's message in c->err)
 * from its reply; ANSWER_FAILED (c->err set) when it cannot be asked or
 * answers garbage.  In a call (die set) the program's end ends us. */
static int ask2(exec_ctx *c, const char *verb, int files, int die,
                char *text, size_t n)
{
    char req[2 * PATH_MAX + 64], reply[EXEC_MSG_MAX + 1];
    if (files)
        snprintf(req, sizeof req, "%s\n%s\n%s", verb, c->in, c->out);
    else
        snprintf(req, sizeof req, "%s", verb);
    int rc = iohw__exec_serve_ask(&c->server, &c->cmd, req, reply, sizeof reply,
                                  &c->err);
    /* A program that could not be executed (127) has not died of a case. */
    const int st = c->server.status;
    if (rc == EXEC_GONE && die && !(WIFEXITED(st) && WEXITSTATUS(st) == 127))
        die_with_program(c);
    if (rc != EXEC_REPLY)
        return ANSWER_FAILED;

    /* The first line is the status, the rest its text. */
    char *rest = strchr(reply, '\n');
    if (rest != NULL)
        *rest++ = '\0';
    else
        rest = reply + strlen(reply);
    if (text != NULL)
        snprintf(text, n, "%s", rest);
    if (strcmp(reply, "ok") == 0)
        return ANSWER_OK;
    if (strcmp(reply, "unsupported") == 0 || strcmp(reply, "error") == 0) {
        if (reply[0] == 'e')
            iohw_error_set(&c->err, "%.200s reported an error: %.800s",
                           c->server.label, rest[0] ? rest : "(no message)");
        else
            iohw_error_set(&c->err, "%.900s", rest[0] ? rest
                                                      : "(no reason given)");
        return reply[0] == 'e' ? ANSWER_ERROR : ANSWER_UNSUPPORTED;
    }
    iohw__exec_serve_stop(&c->server);
    iohw_error_set(&c->err, "%.200s answered garbage: a reply whose first line "
                   "is \"%.40s\", not ok, unsupported or error; it was stopped",
                   c->server.label, reply);
    return ANSWER_FAILED;
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
    snprintf(c->server.label, sizeof c->server.label, "%.250s", w);
}

/* Asks --describe; chooses the protocol; names the table. */
static void describe(exec_ctx *c)
{
    const char *want = getenv("IOHW_EXEC_PROTOCOL");
    char text[4096] = "";
    c->protocol = 1;
    if (want != NULL && strcmp(want, "2") == 0) {
        c->protocol = 2;
        if (ask2(c, "describe", 0, 0, text, sizeof text) != ANSWER_OK)
            text[0] = '\0';
    } else {
        static const char *const extra[] = {"--describe", NULL};
        iohw_error e;
        if (iohw__exec_spawn(&c->cmd, extra, text, sizeof text, &e) != 0)
            text[0] = '\0';
    }
    iohw__exec_about_parse(text, &c->about);
    if (want == NULL || want[0] == '\0')
        c->protocol = c->about.protocol2 ? 2 : 1;
    if (c->protocol == 2)
        iohw__exec_serve_start(&c->server, &c->cmd, &c->err);

    const char *base = strrchr(c->server.label, '/');
    base = base != NULL ? base + 1 : c->server.label;
    snprintf(table_name, sizeof table_name, "exec:%.100s",
             c->about.name[0] ? c->about.name : base);
    snprintf(table_version, sizeof table_version, "%s (%.300s; exec protocol %d)",
             c->about.version[0] ? c->about.version
                                 : "no version: no --describe answer",
             getenv("IOHW_EXEC_COMMAND"), c->protocol);
}

static int exec_init(void **ctx)
{
    exec_ctx *c = calloc(1, sizeof *c);
    iohw_error e;
    if (c == NULL)
        return IOHW_OUT_OF_MEMORY;
    c->server.req = c->server.rep = c->server.log = -1;

    /* The command; without one every problem is refused (with why). */
    c->cmd_ok = iohw__exec_cmd_parse(getenv("IOHW_EXEC_COMMAND"), &c->cmd,
                                     &e) == 0;
    if (!c->cmd_ok)
        snprintf(c->cmd_why, sizeof c->cmd_why, "%.250s", e.msg);

    /* The private directory. */
    const char *tmp = getenv("TMPDIR");
    if (tmp == NULL || tmp[0] == '\0')
        tmp = "/tmp";
    snprintf(c->dir, sizeof c->dir, "%s/iohw-exec-XXXXXX", tmp);
    if (strchr(tmp, '\n') != NULL || mkdtemp(c->dir) == NULL) {
        iohw__exec_cmd_free(&c->cmd);
        free(c);
        return IOHW_BACKEND_ERROR;
    }
    snprintf(c->in, sizeof c->in, "%s/IN.h5", c->dir);
    snprintf(c->out, sizeof c->out, "%s/OUT.h5", c->dir);
    snprintf(c->server.log_path, sizeof c->server.log_path, "%s/stderr", c->dir);
    if (c->cmd_ok) {
        set_label(c);
        describe(c);
    }
    *ctx = c;
    return IOHW_OK;
}

static void exec_fini(void *ctx)
{
    exec_ctx *c = ctx;
    if (c == NULL)
        return;
    iohw__exec_serve_stop(&c->server);
    unlink(c->in);
    unlink(c->out);
    unlink(c->server.log_path);
    rmdir(c->dir);
    iohw__exec_cmd_free(&c->cmd);
    free(c);
}

SKELETON_LAST_ERROR(exec, exec_ctx)

/* IOHW_UNSUPPORTED (c->err says why) for a quantized problem when the
 * program does not declare quantized support; else IOHW_OK. */
static int quant_declared(exec_ctx *c, const iohw_problem *p)
{
    if (!iohw_problem_is_quant(p) || c->about.quantized)
        return IOHW_OK;
    return iohw_error_set(&c->err, "the program does not declare quantized "
                          "support (dtype %s): its --describe answer has no "
                          "quantized=1 (docs/EXEC_PROTOCOL.md)",
                          iohw_dtype_name(p->dtype)),
           IOHW_UNSUPPORTED;
}

/* IOHW_UNSUPPORTED (c->err says why) when the program's --describe answer
 * does not list p's direction (specification section 13: a program opts
 * in to the backward ones with a directions= line); else IOHW_OK. */
static int direction_declared(exec_ctx *c, const iohw_problem *p)
{
    static const char *const words[] = {"fwd", "bwd_d", "bwd_w"};
    if (p->direction < 0 || p->direction > IOHW_DIR_BWD_W ||
        (c->about.directions & 1u << p->direction) != 0)
        return IOHW_OK;
    if (p->direction == IOHW_DIR_FWD)
        return iohw_error_set(&c->err, "the program does not compute the "
                              "forward direction: its --describe answer's "
                              "directions= line has no fwd"),
               IOHW_UNSUPPORTED;
    return iohw_error_set(&c->err, "the program does not opt in to %s: its "
                          "--describe answer has no directions= line naming "
                          "%s (docs/EXEC_PROTOCOL.md)", iohw_direction_name(p),
                          words[p->direction]),
           IOHW_UNSUPPORTED;
}

/* --- supports() ----------------------------------------------------------- */

/* OUT.h5 after a query that went through: claimed, refused or malformed
 * (what names the query in the message). */
static void read_answer(exec_ctx *c, const iohw_problem *p, exec_class *k,
                        const char *what)
{
    iohw_error e;
    int rc = iohw__exec_read_output(c->out, p, 0, NULL, &e);
    k->claimed = rc == 0;
    k->failed = rc < 0;
    if (rc != 0)
        snprintf(k->why, sizeof k->why, "%s%s%.360s", rc < 0 ? what : "",
                 rc < 0 ? "'s answer: " : "", e.msg);
}

/* The program's answer to the query for p, into k. */
static void query(exec_ctx *c, const iohw_problem *p, exec_class *k)
{
    iohw_error e;
    k->failed = 1;
    if (iohw__exec_write_input(c->in, p, NULL, NULL, NULL, NULL, &e) != 0) {
        snprintf(k->why, sizeof k->why, "cannot write the query: %.360s", e.msg);
        return;
    }
    if (c->protocol == 2) {
        int a = ask2(c, "supports", 1, 1, NULL, 0);
        if (a == ANSWER_OK) {
            read_answer(c, p, k, "the supports request");
            return;
        }
        k->failed = a != ANSWER_UNSUPPORTED;
        snprintf(k->why, sizeof k->why, "%s%.300s", a == ANSWER_UNSUPPORTED ?
                 "the program does not claim this problem: " : "the supports "
                 "request failed: ", c->err.msg);
        return;
    }
    const char *const extra[] = {"--supports", c->in, c->out, NULL};
    if (iohw__exec_spawn(&c->cmd, extra, NULL, 0, &e) != 0) {
        snprintf(k->why, sizeof k->why, "the --supports query failed: %.360s",
                 e.msg);
        return;
    }
    read_answer(c, p, k, "the --supports query");
}

/* Asks the program about the problem's class (once). */
static const exec_class *ask(exec_ctx *c, const iohw_problem *p)
{
    exec_class k;
    iohw__exec_class_of(p, &k);
    for (int i = 0; i < c->nclasses; i++)
        if (iohw__exec_same_class(&c->classes[i], &k))
            return &c->classes[i];

    /* The query: zeros for the inputs. */
    unlink(c->out);
    if (iohw_desc_format_problem(p, NULL, 0, k.asked, sizeof k.asked) < 0)
        k.asked[0] = '\0';
    query(c, p, &k);
    unlink(c->in);
    unlink(c->out);

    /* Remember it. */
    int slot;
    if (c->nclasses < CLASS_MAX) {
        slot = c->nclasses++;
    } else {
        slot = c->next;
        c->next = (c->next + 1) % CLASS_MAX;
    }
    c->classes[slot] = k;
    return &c->classes[slot];
}

/* IOHW_UNSUPPORTED (c->err says why) when the program's --describe answer
 * lists layouts and p's are not among them; else IOHW_OK. */
static int layouts_taken(exec_ctx *c, const iohw_problem *p)
{
    const exec_about *a = &c->about;
    if (!iohw__exec_layout_listed(a->data_layouts, p->data_layout))
        return iohw_error_set(&c->err, "the program takes the data layouts "
                              "%.300s, not %s (its --describe answer)",
                              a->data_layouts, p->data_layout),
               IOHW_UNSUPPORTED;
    if (!iohw__exec_layout_listed(a->weight_layouts, p->weight_layout))
        return iohw_error_set(&c->err, "the program takes the weight layouts "
                              "%.300s, not %s (its --describe answer)",
                              a->weight_layouts, p->weight_layout),
               IOHW_UNSUPPORTED;
    return IOHW_OK;
}

static int exec_supports(void *ctx, const iohw_problem *p)
{
    exec_ctx *c = ctx;
    if (c == NULL)
        return IOHW_UNSUPPORTED;
    if (!c->cmd_ok) {
        /* No program: nothing is claimed (docs/EXEC_PROTOCOL.md). */
        iohw_error_set(&c->err, "%s", c->cmd_why);
        return IOHW_UNSUPPORTED;
    }
    if (skeleton_check(p, &c->err) != 0 || layouts_taken(c, p) != IOHW_OK ||
        quant_declared(c, p) != IOHW_OK || direction_declared(c, p) != IOHW_OK)
        return IOHW_UNSUPPORTED;
    const exec_class *k = ask(c, p);
    if (!k->claimed) {
        /* An answer given for another problem of the class says so: its
         * numbers are that problem's. */
        char desc[IOHW_DESC_MAX];
        if (iohw_desc_format_problem(p, NULL, 0, desc,
                                     sizeof desc) < 0 ||
            strcmp(desc, k->asked) == 0)
            iohw_error_set(&c->err, "%s", k->why);
        else
            iohw_error_set(&c->err, "%s (the answer for this problem's "
                           "class, given for %.300s)", k->why, k->asked);
        return k->failed ? IOHW_BACKEND_ERROR : IOHW_UNSUPPORTED;
    }
    c->err.msg[0] = '\0';
    return IOHW_OK;
}

/* --- run() ---------------------------------------------------------------- */

/* The program computes y for the inputs in c->in: 0 with OUT.h5 written,
 * or an iohw status (c->err set). */
static int compute(exec_ctx *c)
{
    if (c->protocol == 2) {
        int a = ask2(c, "run", 1, 1, NULL, 0);
        return a == ANSWER_OK ? 0 : a == ANSWER_UNSUPPORTED ? IOHW_UNSUPPORTED
                                                            : IOHW_BACKEND_ERROR;
    }
    const char *const extra[] = {c->in, c->out, NULL};
    return iohw__exec_spawn(&c->cmd, extra, NULL, 0, &c->err) == 0
               ? 0 : IOHW_BACKEND_ERROR;
}

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
        return iohw_error_set(&c->err, "%s: the problem's direction is %s",
                              names[call], iohw_direction_name(p)),
               IOHW_INVALID_PROBLEM;
    if (call <= CALL_QUANT && iohw_problem_is_quant(p) != (call == CALL_QUANT))
        return iohw_error_set(&c->err, "%s: dtype %s is %s", names[call],
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

    /* Test the arguments. */
    if (c == NULL)
        return IOHW_BACKEND_ERROR;
    if (!c->cmd_ok) {
        iohw_error_set(&c->err, "%s", c->cmd_why);
        return IOHW_UNSUPPORTED;
    }
    if (skeleton_check(p, &c->err) != 0)
        return IOHW_INVALID_PROBLEM;
    if (call_fits(c, call, p) != IOHW_OK)
        return IOHW_INVALID_PROBLEM;
    if (quant_declared(c, p) != IOHW_OK || direction_declared(c, p) != IOHW_OK)
        return IOHW_UNSUPPORTED;
    const char *missing = null_argument(call, p, in0, in1,
                                        call == CALL_BWD_WEIGHTS ? db : bias,
                                        requant, out);
    if (missing != NULL) {
        iohw_error_set(&c->err, "%s: %s is NULL", call == CALL_BWD_DATA
                       ? "run_bwd_data" : call == CALL_BWD_WEIGHTS
                       ? "run_bwd_weights" : "run", missing);
        return IOHW_INVALID_PROBLEM;
    }

    /* IN.h5, the program, OUT.h5 (dw and db read into one buffer). */
    void *got_out = out;
    const int split = call == CALL_BWD_WEIGHTS && p->has_bias;
    const size_t esize = iohw_dtype_size(p->dtype);
    if (split && (got_out = malloc((size_t)iohw_problem_out_count(p) *
                                   esize)) == NULL)
        return iohw_error_set(&c->err, "out of memory"), IOHW_OUT_OF_MEMORY;
    unlink(c->out);
    if (iohw__exec_write_input(c->in, p, in0, in1, bias, requant,
                               &c->err) != 0) {
        iohw_error_prefix(&c->err, "exec: writing the input");
        goto done;
    }
    rc = compute(c);
    if (rc != 0)
        goto done;
    int got = iohw__exec_read_output(c->out, p, 1, got_out, &c->err);
    if (got != 0) {
        /* 2: y of another shape, its values in y's head (the judge
         * diagnoses it, specification section 3.5). */
        rc = got == 1 ? IOHW_UNSUPPORTED : IOHW_BACKEND_ERROR;
        goto done;
    }
    if (split) {
        const size_t nw = (size_t)iohw_problem_w_count(p) * esize;
        memcpy(out, got_out, nw);
        memcpy(db, (char *)got_out + nw, (size_t)p->out_channels * esize);
    }
    c->err.msg[0] = '\0';
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
    .name = table_name,
    .version = table_version,
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
