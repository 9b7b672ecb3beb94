/*
 * cli/cmd_gen.c - `iohw gen --problem 'DESC' -o FILE`: cases from problem
 * descriptors.  (Suites, `gen --profile`, come in a later version.)
 */
#include "cli/cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cases/case.h"
#include "generators/generators.h"
#include "oracle/descriptor.h"

const char iohw_cli_gen_help[] =
    "Usage: iohw gen --problem 'DESCRIPTOR' [--problem 'DESCRIPTOR' ...] -o FILE\n"
    "                [--id ID] [--threads N]\n"
    "\n"
    "Writes one case per --problem into the HDF5 case file FILE: the inputs x, w\n"
    "(and bias) filled as the descriptor says, and the oracle's y, y_f64 and\n"
    "err_bound.  The same command always writes the same file.  Prints one line\n"
    "per case written: FILE:ID and the case's canonical descriptor.\n"
    "\n"
    "Options:\n"
    "  --problem DESC      a problem descriptor (required, repeatable; see below)\n"
    "  -o, --output FILE   the case file to write (required; replaced if it exists)\n"
    "  --id ID             the case id (default: problem.0, problem.1, ... in the\n"
    "                      order of the --problem options); with several --problem\n"
    "                      options ID is a prefix: ID.0, ID.1, ...  Ids use letters,\n"
    "                      digits, '.', '_' and '-'\n"
    "  --threads N         oracle threads (default: the number of online CPUs)\n"
    "  -h, --help          this text\n"
    "\n"
    "Descriptor: one line of key=value tokens separated by spaces; sizes per\n"
    "spatial axis joined by 'x' in D,H,W order; the number of entries of 'in'\n"
    "is the rank (1, 2 or 3).\n"
    "  n=N            batch (default 1)\n"
    "  ci=C  co=C     input and output channels (required)\n"
    "  g=G            groups, dividing ci and co (default 1)\n"
    "  in=LxL         input size (required)\n"
    "  k=KxK          kernel (required)\n"
    "  s=SxS          stride (default 1)\n"
    "  d=DxD          dilation, 1 = dense (default 1)\n"
    "  pad=PxP        padding per axis, symmetric P or begin:end (default 0)\n"
    "  op=AxA         output_padding (default 0)\n"
    "  bias=0|1       with a bias (default 0)\n"
    "  dt=TYPE        f32, f64, f16 or bf16 (default f32)\n"
    "  xl=LAYOUT      data layout of x and y, e.g. NCHW, NHWC (default NC+spatial)\n"
    "  wl=LAYOUT      weight layout, e.g. IOHW, OIHW, HWOI, GOIHW (default\n"
    "                 IO+spatial)\n"
    "  fill=FILL      exact, normal, uniform, cancel, range or special (default\n"
    "                 normal)\n"
    "  seed=S         seed of the fill, 64-bit (default 1)\n"
    "\n"
    "Examples:\n"
    "  iohw gen --problem 'n=2 ci=4 co=6 g=2 in=5x7 k=3x2 s=2x1 d=1x2 pad=1:0x0:1 op=1x0\n"
    "                      bias=1 dt=f32 xl=NHWC wl=OIHW fill=normal seed=7' -o case.h5\n"
    "  iohw gen --problem 'ci=3 co=5 in=8 k=4 s=2 fill=exact' \\\n"
    "           --problem 'ci=3 co=5 in=8 k=4 s=2 dt=f16 fill=exact' -o two.h5\n"
    "  iohw show case.h5\n";

static int fail_usage_desc(const char *text, const iohw_error *e)
{
    return iohw_cli_usage("gen", "--problem '%s': %s", text, e->msg);
}

int iohw_cli_gen(int argc, char **argv)
{
    const char *out = NULL;
    const char *id = NULL;
    const char **problems = NULL;
    iohw_desc *descs = NULL;
    iohw_case_file *f = NULL;
    iohw_error e;
    int nproblems = 0;
    int threads = iohw_cli_default_threads();
    int status = IOHW_EXIT_USAGE;

    /* Options. */
    problems = malloc((size_t)argc * sizeof *problems);
    if (problems == NULL) {
        iohw_cli_error("gen: out of memory");
        return IOHW_EXIT_USAGE;
    }
    for (int i = 1; i < argc; i++) {
        const char *v = NULL;
        int r;
        if (iohw_cli_is_help(argv[i])) {
            fputs(iohw_cli_gen_help, stdout);
            status = IOHW_EXIT_OK;
            goto done;
        }
        if ((r = iohw_cli_option("gen", argc, argv, &i, "--problem", NULL, &v)) != 0) {
            if (r < 0)
                goto done;
            problems[nproblems++] = v;
        } else if ((r = iohw_cli_option("gen", argc, argv, &i, "--output", "-o", &v)) != 0) {
            if (r < 0)
                goto done;
            out = v;
        } else if ((r = iohw_cli_option("gen", argc, argv, &i, "--id", NULL, &v)) != 0) {
            if (r < 0)
                goto done;
            id = v;
        } else if ((r = iohw_cli_option("gen", argc, argv, &i, "--threads", NULL, &v)) != 0) {
            if (r < 0 || iohw_cli_parse_threads("gen", v, &threads) != 0)
                goto done;
        } else if (strcmp(argv[i], "--profile") == 0
                   || strncmp(argv[i], "--profile=", 10) == 0) {
            iohw_cli_usage("gen", "--profile: suites are not available in this version; "
                           "use --problem");
            goto done;
        } else if (argv[i][0] == '-') {
            iohw_cli_usage("gen", "unknown option '%s'", argv[i]);
            goto done;
        } else {
            iohw_cli_usage("gen", "unexpected argument '%s'", argv[i]);
            goto done;
        }
    }
    if (nproblems == 0) {
        iohw_cli_usage("gen", "missing --problem 'DESCRIPTOR'");
        goto done;
    }
    if (out == NULL) {
        iohw_cli_usage("gen", "missing -o FILE");
        goto done;
    }

    /* Parse every descriptor and check the ids before writing anything. */
    descs = calloc((size_t)nproblems, sizeof *descs);
    if (descs == NULL) {
        iohw_cli_error("gen: out of memory");
        goto done;
    }
    for (int j = 0; j < nproblems; j++) {
        if (iohw_desc_parse(problems[j], &descs[j], &e) != 0) {
            fail_usage_desc(problems[j], &e);
            goto done;
        }
    }
    if (id != NULL) {
        char probe[IOHW_CASE_ID_MAX + 32];
        snprintf(probe, sizeof probe, nproblems == 1 ? "%s" : "%s.0", id);
        if (strlen(id) + 12 >= IOHW_CASE_ID_MAX || !iohw_case_id_valid(probe)) {
            iohw_cli_usage("gen", "--id '%s': ids use letters, digits, '.', '_' and '-' "
                           "(at most %d characters)", id, IOHW_CASE_ID_MAX - 13);
            goto done;
        }
    }

    /* Make and write the cases. */
    f = iohw_case_file_create(out, &e);
    if (f == NULL) {
        iohw_cli_error("gen: %s", e.msg);
        goto done;
    }
    for (int j = 0; j < nproblems; j++) {
        char case_id[IOHW_CASE_ID_MAX];
        iohw_case c;
        if (id == NULL)
            snprintf(case_id, sizeof case_id, "problem.%d", j);
        else if (nproblems == 1)
            snprintf(case_id, sizeof case_id, "%s", id);
        else
            snprintf(case_id, sizeof case_id, "%s.%d", id, j);
        if (iohw_make_case(&descs[j], case_id, NULL, threads, &c, &e) != 0) {
            iohw_cli_error("gen: %s", e.msg);
            goto fail_file;
        }
        if (iohw_case_file_write(f, &c, &e) != 0) {
            iohw_cli_error("gen: %s", e.msg);
            iohw_case_free(&c);
            goto fail_file;
        }
        printf("%s:%s  %s\n", out, c.id, c.descriptor);
        iohw_case_free(&c);
    }
    if (iohw_case_file_close(f, &e) != 0) {
        f = NULL;
        iohw_cli_error("gen: %s", e.msg);
        goto fail_file;
    }
    f = NULL;
    status = IOHW_EXIT_OK;
    goto done;

fail_file:
    /* No half-written files: remove what was created. */
    if (f != NULL)
        iohw_case_file_close(f, NULL);
    f = NULL;
    unlink(out);

done:
    free(descs);
    free(problems);
    return status;
}
