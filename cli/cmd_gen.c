/*
 * cli/cmd_gen.c - `iohw gen --problem 'DESC' -o FILE`: cases from problem
 * descriptors; `iohw gen --profile NAME -o DIR`: suites (generators/suite.h).
 */
#include "cli/cli.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cases/case.h"
#include "generators/generators.h"
#include "generators/suite.h"
#include "oracle/descriptor.h"
#include "oracle/oracle.h"

const char iohw_cli_gen_help[] =
    "Usage: iohw gen --problem 'DESCRIPTOR' [--problem 'DESCRIPTOR' ...] -o FILE\n"
    "                [--id ID] [--threads N] [--definition]\n"
    "       iohw gen --profile smoke|ci|full -o DIR [--seed S] [--threads N]\n"
    "                [--dry-run] [--definition]\n"
    "       iohw gen --list-profiles\n"
    "\n"
    "With --problem, writes one case per --problem into the HDF5 case file FILE:\n"
    "the inputs x, w (and bias) filled as the descriptor says, and the oracle's\n"
    "y, y_f64 and err_bound.  The same command always writes the same file.\n"
    "Prints one line per case written: FILE:ID and the case's canonical\n"
    "descriptor.\n"
    "\n"
    "With --profile, writes a suite into the directory DIR: one case file per\n"
    "category (pairwise.h5, layouts.h5, shapes.h5, regressions.h5, fills.h5 and,\n"
    "for full, random.h5) and manifest.txt, one line per case: id, file,\n"
    "descriptor and tags separated by tabs.  Case ids read\n"
    "ct<rank>d.<category>.<dtype>.<number>, e.g. ct2d.pairwise.f32.0042; the same\n"
    "command writes the same cases with the same numbers, whatever --threads.\n"
    "Prints what it wrote (cases and bytes per file, time) and the pairwise\n"
    "coverage: how many pairs of factor values that can coexist the suite holds.\n"
    "Profiles:\n"
    "  smoke   at most 300 small cases, written in seconds; catches every bug\n"
    "          class of the regression corpus\n"
    "  ci      1,500 to 5,000 cases, under 100 MB\n"
    "  full    20,000 cases or more\n"
    "Regression cases carry a tag bug-<name> (bug-io-swap, bug-no-flip, ...);\n"
    "cases with NaN, Inf and subnormal inputs carry fill-special, so\n"
    "--filter 'tag!=fill-special' in 'iohw run' leaves them out.\n"
    "\n"
    "Options:\n"
    "  --problem DESC      a problem descriptor (repeatable; see below)\n"
    "  -o, --output PATH   the case file (--problem) or the suite directory\n"
    "                      (--profile) to write; files are replaced\n"
    "  --profile NAME      write the suite of profile NAME: smoke, ci or full\n"
    "  --seed S            with --profile: vary every fill reproducibly (64-bit\n"
    "                      unsigned integer; default 1); the problems stay the same\n"
    "  --dry-run           with --profile: print the manifest lines on stdout and\n"
    "                      write nothing (-o not needed)\n"
    "  --list-profiles     print each profile's name, case count and description\n"
    "  --id ID             the case id (default: problem.0, problem.1, ... in the\n"
    "                      order of the --problem options); with several --problem\n"
    "                      options ID is a prefix: ID.0, ID.1, ...  Ids use letters,\n"
    "                      digits, '.', '_' and '-'\n"
    "  --threads N         oracle threads (--problem) or threads making cases\n"
    "                      (--profile) (default: the number of online CPUs)\n"
    "  --definition        compute with the oracle's definition (plain loops,\n"
    "                      oracle/conv_transpose.c) instead of its tuned kernel;\n"
    "                      the two write the same bits (a test proves it), so\n"
    "                      this checks a suspicious case both ways.  The same as\n"
    "                      the environment variable IOHW_ORACLE=definition\n"
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
    "  fill=FILL      exact, normal, uniform, cancel, range, special, zeros,\n"
    "                 subnormal, ties or huge (default normal)\n"
    "  seed=S         seed of the fill, 64-bit (default 1)\n"
    "\n"
    "Examples:\n"
    "  iohw gen --problem 'n=2 ci=4 co=6 g=2 in=5x7 k=3x2 s=2x1 d=1x2 pad=1:0x0:1 op=1x0\n"
    "                      bias=1 dt=f32 xl=NHWC wl=OIHW fill=normal seed=7' -o case.h5\n"
    "  iohw gen --problem 'ci=3 co=5 in=8 k=4 s=2 fill=exact' \\\n"
    "           --problem 'ci=3 co=5 in=8 k=4 s=2 dt=f16 fill=exact' -o two.h5\n"
    "  iohw show case.h5\n"
    "  iohw gen --profile smoke -o suite/ && iohw show suite/\n"
    "  iohw gen --profile ci --seed 7 -o ci-suite/ --threads 2\n"
    "  iohw gen --problem 'ci=3 co=5 in=8 k=4 s=2' --definition -o def.h5\n";

static int fail_usage_desc(const char *text, const iohw_error *e)
{
    return iohw_cli_usage("gen", "--problem '%s': %s", text, e->msg);
}

/* --seed: a decimal unsigned 64-bit integer. */
static int parse_seed(const char *text, uint64_t *seed)
{
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (text[0] < '0' || text[0] > '9' || end == NULL || *end != '\0' || errno == ERANGE) {
        iohw_cli_usage("gen", "--seed '%s': expected an unsigned 64-bit decimal integer",
                       text);
        return -1;
    }
    *seed = (uint64_t)v;
    return 0;
}

/* --list-profiles: name, case count, description. */
static int list_profiles(void)
{
    const char *const *names = iohw_profile_names();
    iohw_error e;
    for (int i = 0; names[i] != NULL; i++) {
        iohw_plan plan;
        if (iohw_plan_profile(names[i], 1, &plan, &e) != 0) {
            iohw_cli_error("gen: profile %s: %s", names[i], e.msg);
            return IOHW_EXIT_USAGE;
        }
        printf("%-6s %6lld cases  %s\n", names[i], (long long)plan.count,
               iohw_profile_about(names[i]));
        iohw_plan_free(&plan);
    }
    return IOHW_EXIT_OK;
}

/* --profile NAME: plans the suite, then prints its manifest (dry run) or
 * writes it into dir and prints what it wrote. */
static int gen_profile(const char *profile, uint64_t seed, const char *dir,
                       int threads, int dry_run)
{
    iohw_plan plan;
    iohw_suite_report r;
    iohw_error e;
    int status = IOHW_EXIT_OK;

    if (iohw_plan_profile(profile, seed, &plan, &e) != 0)
        return iohw_cli_usage("gen", "--profile: %s", e.msg);
    const double coverage = plan.pairs_coexisting > 0
                            ? 100.0 * (double)plan.pairs_covered / (double)plan.pairs_coexisting
                            : 100.0;
    if (dry_run) {
        if (iohw_plan_write_manifest(&plan, stdout, &e) != 0) {
            iohw_cli_error("gen: %s", e.msg);
            status = IOHW_EXIT_USAGE;
        }
        iohw_plan_free(&plan);
        return status;
    }

    printf("iohw gen: profile %s, seed %llu, %d thread%s -> %s\n", plan.profile,
           (unsigned long long)seed, threads, threads == 1 ? "" : "s", dir);
    fflush(stdout);
    if (iohw_suite_write(&plan, dir, threads, stdout, &r, &e) != 0) {
        iohw_cli_error("gen: %s", e.msg);
        iohw_plan_free(&plan);
        return IOHW_EXIT_USAGE;
    }
    const double secs = r.seconds > 0 ? r.seconds : 1e-9;
    printf("wrote %lld cases, %lld bytes (%.1f MB) in %.2f s: %.0f cases/s, %.1f MB/s\n",
           (long long)r.cases, (long long)r.bytes, (double)r.bytes / 1e6, r.seconds,
           (double)r.cases / secs, (double)r.bytes / 1e6 / secs);
    printf("pairwise coverage: %lld of %lld pairs of factor values that can coexist "
           "(%.1f%%), %d factors, %d covering-array rows\n",
           (long long)plan.pairs_covered, (long long)plan.pairs_coexisting, coverage,
           plan.nfactors, plan.pairwise_rows);
    iohw_plan_free(&plan);
    return status;
}

int iohw_cli_gen(int argc, char **argv)
{
    const char *out = NULL;
    const char *id = NULL;
    const char **problems = NULL;
    iohw_desc *descs = NULL;
    iohw_case_file *f = NULL;
    iohw_error e;
    const char *profile = NULL;
    int nproblems = 0;
    int threads = iohw_cli_default_threads();
    int status = IOHW_EXIT_USAGE;
    int list = 0, dry_run = 0, seed_given = 0;
    uint64_t seed = 1;

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
        } else if ((r = iohw_cli_option("gen", argc, argv, &i, "--profile", NULL, &v)) != 0) {
            if (r < 0)
                goto done;
            profile = v;
        } else if ((r = iohw_cli_option("gen", argc, argv, &i, "--seed", NULL, &v)) != 0) {
            if (r < 0 || parse_seed(v, &seed) != 0)
                goto done;
            seed_given = 1;
        } else if (strcmp(argv[i], "--list-profiles") == 0) {
            list = 1;
        } else if (strcmp(argv[i], "--dry-run") == 0) {
            dry_run = 1;
        } else if (strcmp(argv[i], "--definition") == 0) {
            setenv(IOHW_ORACLE_ENV, "definition", 1);
        } else if (argv[i][0] == '-') {
            iohw_cli_usage("gen", "unknown option '%s'", argv[i]);
            goto done;
        } else {
            iohw_cli_usage("gen", "unexpected argument '%s'", argv[i]);
            goto done;
        }
    }
    /* Suites. */
    if (list || profile != NULL) {
        if (nproblems > 0) {
            iohw_cli_usage("gen", "--problem cannot be combined with %s",
                           list ? "--list-profiles" : "--profile");
            goto done;
        }
        if (id != NULL) {
            iohw_cli_usage("gen", "--id applies to --problem, not to suites");
            goto done;
        }
        if (list) {
            status = list_profiles();
            goto done;
        }
        if (out == NULL && !dry_run) {
            iohw_cli_usage("gen", "missing -o DIR for --profile %s", profile);
            goto done;
        }
        status = gen_profile(profile, seed, out, threads, dry_run);
        goto done;
    }
    if (seed_given || dry_run) {
        iohw_cli_usage("gen", "%s applies to --profile; a descriptor sets its own seed=",
                       seed_given ? "--seed" : "--dry-run");
        goto done;
    }
    if (nproblems == 0) {
        iohw_cli_usage("gen", "missing --problem 'DESCRIPTOR' (or --profile NAME)");
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
