/*
 * backends/exec/exec_ask.c - asking the program: protocol 2 and 3
 * requests, supports() with its cache (by class, or by problem for a
 * program whose --describe answer says supports=problem), and the run
 * request with what follows a failure (docs/EXEC_PROTOCOL.md, "Protocol
 * 3"): a program that failed a request is replaced before the next one,
 * and one killed after writing a whole OUT.h5 leaves its y with a warning.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backends/exec/exec.h"
#include "backends/skeleton_check.h"
#include "oracle/descriptor.h"
#include "oracle/dtype.h"
#include "oracle/problem.h"
#include "oracle/quant_problem.h"

/* --- protocol 2 and 3 ----------------------------------------------------- */

_Noreturn void iohw__exec_die_with_program(exec_ctx *c)
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
    fprintf(stderr, "exec: %s\n", iohw__exec_text(c->msg));
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

int iohw__exec_ask2(exec_ctx *c, const char *verb, int files, char **text)
{
    char *req = files ? iohw__exec_fmt("%s\n%s\n%s", verb, c->in, c->out)
                      : iohw__exec_fmt("%s", verb);
    char *reply = malloc(EXEC_MSG_MAX + 1);
    int rc = EXEC_ANSWER_FAILED;
    if (req == NULL || reply == NULL) {
        iohw__exec_say(&c->msg, "out of memory");
        goto done;
    }
    const int got = iohw__exec_serve_ask(&c->server, &c->cmd, req, reply,
                                         EXEC_MSG_MAX + 1, &c->msg);
    /* A program that could not be executed (127) has not died of a case. */
    const int st = c->server.status;
    if (got == EXEC_GONE && !(WIFEXITED(st) && WEXITSTATUS(st) == 127))
        rc = EXEC_ANSWER_GONE;
    if (got != EXEC_REPLY)
        goto done;

    /* The first line is the status, the rest its text. */
    char *rest = strchr(reply, '\n');
    if (rest != NULL)
        *rest++ = '\0';
    else
        rest = reply + strlen(reply);
    if (text != NULL)
        *text = strdup(rest);
    if (strcmp(reply, "ok") == 0) {
        rc = EXEC_ANSWER_OK;
    } else if (strcmp(reply, "error") == 0) {
        iohw__exec_say(&c->msg, "%s reported an error: %s", c->server.label,
                       rest[0] ? rest : "(no message)");
        rc = EXEC_ANSWER_ERROR;
    } else if (strcmp(reply, "unsupported") == 0) {
        iohw__exec_say(&c->msg, "%s", rest[0] ? rest : "(no reason given)");
        rc = EXEC_ANSWER_UNSUPPORTED;
    } else {
        iohw__exec_serve_stop(&c->server);
        iohw__exec_say(&c->msg, "%s answered garbage: a reply whose first "
                       "line is \"%.40s\", not ok, unsupported or error; it "
                       "was stopped", c->server.label, reply);
    }
done:
    free(req);
    free(reply);
    return rc;
}

/* --- refusals without asking ---------------------------------------------- */

/* IOHW_UNSUPPORTED for a quantized problem when the program does not
 * declare quantized support, or a direction it does not list (a program
 * opts in to the backward ones, specification section 13). */
int iohw__exec_kind_declared(exec_ctx *c, const iohw_problem *p)
{
    static const char *const words[] = {"fwd", "bwd_d", "bwd_w"};
    if (iohw_problem_is_quant(p) && !c->about.quantized)
        return iohw__exec_say(&c->msg, "the program does not declare "
                              "quantized support (dtype %s): its --describe "
                              "answer has no quantized=1 "
                              "(docs/EXEC_PROTOCOL.md)",
                              iohw_dtype_name(p->dtype)),
               IOHW_UNSUPPORTED;
    if (p->direction < 0 || p->direction > IOHW_DIR_BWD_W ||
        (c->about.directions & 1u << p->direction) != 0)
        return IOHW_OK;
    if (p->direction == IOHW_DIR_FWD)
        return iohw__exec_say(&c->msg, "the program does not compute the "
                              "forward direction: its --describe answer's "
                              "directions= line has no fwd"),
               IOHW_UNSUPPORTED;
    return iohw__exec_say(&c->msg, "the program does not opt in to %s: its "
                          "--describe answer has no directions= line naming "
                          "%s (docs/EXEC_PROTOCOL.md)", iohw_direction_name(p),
                          words[p->direction]),
           IOHW_UNSUPPORTED;
}

int iohw__exec_declared(exec_ctx *c, const iohw_problem *p)
{
    const exec_about *a = &c->about;
    if (!iohw__exec_layout_listed(a->data_layouts, p->data_layout))
        return iohw__exec_say(&c->msg, "the program takes the data layouts "
                              "%s, not %s (its --describe answer)",
                              a->data_layouts, p->data_layout),
               IOHW_UNSUPPORTED;
    if (!iohw__exec_layout_listed(a->weight_layouts, p->weight_layout))
        return iohw__exec_say(&c->msg, "the program takes the weight layouts "
                              "%s, not %s (its --describe answer)",
                              a->weight_layouts, p->weight_layout),
               IOHW_UNSUPPORTED;
    return iohw__exec_kind_declared(c, p);
}

/* --- the run request ------------------------------------------------------ */

/* The program was killed by a signal after the request: y is kept when
 * OUT.h5 reads whole (a crash at its exit, docs/EXEC_PROTOCOL.md
 * "Protocol 3"), with a warning on stderr; 0 then, else -1. */
static int kept_after_crash(exec_ctx *c, const iohw_problem *p, int status,
                            int killed, void *y)
{
    char how[96], *msg = NULL;
    if (!WIFSIGNALED(status) || killed ||
        iohw__exec_read_output(c->out, p, 1, y, &msg) != 0) {
        free(msg);
        return -1;
    }
    iohw__exec_how(status, how, sizeof how);
    fprintf(stderr, "exec: y kept: the program %s after writing OUT.h5 "
            "whole\nexec: %s\n", how, iohw__exec_text(c->msg));
    fflush(stderr);
    iohw__exec_say(&c->msg, "%s", "");
    return 0;
}

/* Protocol 2 and 3: the run request. */
static int compute2(exec_ctx *c, const iohw_problem *p, void *y)
{
    const int a = iohw__exec_ask2(c, "run", 1, NULL);
    if (a == EXEC_ANSWER_GONE) {
        if (kept_after_crash(c, p, c->server.status,
                             c->server.watch.over > 0, y) == 0)
            return 0;
        iohw__exec_die_with_program(c);
    }
    if (a == EXEC_ANSWER_OK) {
        const int got = iohw__exec_read_output(c->out, p, 1, y, &c->msg);
        return got == 0 ? 0 : got == 1 ? IOHW_UNSUPPORTED : IOHW_BACKEND_ERROR;
    }
    return a == EXEC_ANSWER_UNSUPPORTED ? IOHW_UNSUPPORTED : IOHW_BACKEND_ERROR;
}

int iohw__exec_compute(exec_ctx *c, const iohw_problem *p, void *y)
{
    if (c->protocol >= 2) {
        const int rc = compute2(c, p, y);
        /* After a failure (or always, restart=each) the next request gets
         * a fresh program: what this one did to itself stays with this
         * case. */
        if (rc != 0)
            iohw__exec_serve_kill(&c->server);
        else if (c->restart == EXEC_RESTART_EACH)
            iohw__exec_serve_stop(&c->server);
        return rc;
    }
    const char *const extra[] = {c->in, c->out, NULL};
    int status = 0, killed = 0;
    if (iohw__exec_spawn(&c->cmd, extra, NULL, 0, &status, &killed,
                         &c->msg) != 0)
        return kept_after_crash(c, p, status, killed, y) == 0
                   ? 0 : IOHW_BACKEND_ERROR;
    const int got = iohw__exec_read_output(c->out, p, 1, y, &c->msg);
    return got == 0 ? 0 : got == 1 ? IOHW_UNSUPPORTED : IOHW_BACKEND_ERROR;
}
