/*
 * cli/cmd_gen.c - `iohw gen --problem 'DESC' -o FILE`: cases from problem
 * descriptors; `iohw gen --profile NAME -o DIR`: suites (generators/suite.h).
 */
#include "cli/cli.h"
#include "cli/claim.h"

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
    "       iohw gen --profile smoke|ci|full|models -o DIR [--seed S] [--threads N]\n"
    "                [--dry-run] [--definition] [--for-backend LIB.so]\n"
    "       iohw gen --list-profiles\n"
    "\n"
    "With --problem, writes one case per --problem into the HDF5 case file FILE:\n"
    "the inputs x, w (and bias) filled as the descriptor says, and the oracle's\n"
    "y, y_f64 and err_bound; with dir=bwd_d the inputs dy and w and the output\n"
    "dx, with dir=bwd_w x and dy and the outputs dw (and db with bias=1).  The\n"
    "same command always writes the same file.\n"
    "Prints one line per case written: FILE:ID and the case's canonical\n"
    "descriptor.\n"
    "\n"
    "With --profile, writes a suite into the directory DIR: one case file per\n"
    "category (pairwise.h5, layouts.h5, shapes.h5, regressions.h5, fills.h5,\n"
    "quant.h5 (quantized cases), backward.h5 (the backward directions, tagged\n"
    "dir-bwd_d or dir-bwd_w) and, for full, random.h5) and manifest.txt, one\n"
    "line per case: id, file,\n"
    "descriptor and tags separated by tabs.  Case ids read\n"
    "ct<rank>d.<category>.<dtype>.<number>, e.g. ct2d.pairwise.f32.0042 (a\n"
    "backward case's id names its direction: ct2d.bwd_w.f16.0007); the same\n"
    "command writes the same cases with the same numbers, whatever --threads.\n"
    "Prints what it wrote (cases and bytes per file, time) and the pairwise\n"
    "coverage: how many pairs of factor values that can coexist the suite holds\n"
    "(forward factors; the backward cases over the backward factors).\n"
    "Profiles:\n"
    "  smoke   at most 400 small cases, written in seconds; catches every bug\n"
    "          class of the regression corpus, both backward directions\n"
    "  ci      1,500 to 5,000 cases, under 100 MB\n"
    "  full    20,000 cases or more\n"
    "  models  the transposed-convolution layers of real networks, one case per\n"
    "          layer and direction in models.h5 (backward where the gradient\n"
    "          has at most 65,536 elements), id models.<network>.<layer>\n"
    "          (.bwd_d, .bwd_w), tag\n"
    "          model-<network>: DCGAN, U-Net, HiFi-GAN, MelGAN, EnCodec, 3-D U-Net,\n"
    "          V-Net, YOLOv8-seg, FCN-8s and benchdnn's deconv shapes (alexnet,\n"
    "          googlenet, masknet, unet_3d dilated, channel tails); f32, exact\n"
    "          fill; under 1 GB\n"
    "\n"
    "With --for-backend LIB.so, the suite fits what that backend claims.  A\n"
    "child process loads it and asks its supports() over the factor space of\n"
    "the pairwise category (rank, kernel, stride, dilation, padding, groups,\n"
    "dtype, layouts, ...; iohw itself never loads a backend); a pair of factor\n"
    "values is claimed when supports() accepts some problem that holds both.\n"
    "The pairwise category then holds covering arrays of the claimed pairs\n"
    "(as many arrays as the profile has; every claimed pair in each), and the\n"
    "other categories keep the cases the backend claims, so a narrow backend\n"
    "is tested as thoroughly as a broad one and 'iohw run' shows no\n"
    "UNSUPPORTED.  Prints the claim, how many of the plain profile's cases the\n"
    "backend claims and the claimed-pair coverage of both: of the pairs the\n"
    "backend claims, how many the suite holds.  A backend that claims nothing\n"
    "is an error.  Each problem is asked once; while asking, a line on\n"
    "stderr every 10 s gives the supports() calls so far (a few thousand for\n"
    "smoke).  Ids are numbered anew (the models profile keeps its\n"
    "models.<network>.<layer>); the same backend, profile and seed write the\n"
    "same suite.\n"
    "Regression cases carry a tag bug-<name> (bug-io-swap, bug-no-flip, ...);\n"
    "cases with NaN, Inf and subnormal inputs carry fill-special, so\n"
    "--filter 'tag!=fill-special' in 'iohw run' leaves them out.\n"
    "\n"
    "Options:\n"
    "  --problem DESC      a problem descriptor (repeatable; see below)\n"
    "  -o, --output PATH   the case file (--problem) or the suite directory\n"
    "                      (--profile) to write; files are replaced\n"
    "  --profile NAME      write the suite of profile NAME: smoke, ci, full or\n"
    "                      models\n"
    "  --seed S            with --profile: vary every fill reproducibly (64-bit\n"
    "                      unsigned integer; default 1); the problems stay the same\n"
    "  --dry-run           with --profile: print the manifest lines on stdout and\n"
    "                      write nothing (-o not needed)\n"    "  --for-backend LIB   with --profile: the suite inside what the backend\n"
    "                      LIB (a shared object, as 'iohw run --backend') claims\n"
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
    "  dt=TYPE        f32, f64, f16 or bf16 (default f32); quantized: s8 or u8\n"
    "  wdt=T ydt=T    quantized: w's type (s8, u8) and y's (s8, u8, s32)\n"
    "  zp=X,W,Y       quantized: zero points of x, w, y (default 0,0,0)\n"
    "  round=R        quantized: half_even, half_away, half_up or gemmlowp\n"
    "  m=FORM pc=0|1  quantized: M as scales or fixed (multiplier, shift), per\n"
    "                 output channel or not; sx=S sy=S: the scales of x and y\n"
    "  sw=S,...       quantized, m=scales: the weight scale(s), 1 or co values\n"
    "  qmul=Q,... qshift=E,...  quantized, m=fixed: multipliers in [1, 2^31-1]\n"
    "                 and shifts in [-31, 30] (M = Q * 2^(E-31)), 1 or co\n"
    "                 values; stated values are kept by every fill\n"
    "  xl=LAYOUT      data layout of x and y, e.g. NCHW, NHWC (default NC+spatial)\n"
    "  wl=LAYOUT      weight layout, e.g. IOHW, OIHW, HWOI, GOIHW (default\n"
    "                 IO+spatial)\n"
    "  fill=FILL      exact, normal, uniform, cancel, range, special, zeros,\n"
    "                 subnormal, ties, huge or accum16 (default normal);\n"
    "                 quantized: qrandom, which fits zp_y and sy (or the multipliers) to\n"
    "                 the data so that y spans its range (specification 11.4)\n"
    "  seed=S         seed of the fill, 64-bit (default 1)\n"
    "  auto_pad=A     a framework's padding: same_upper, same_lower or valid\n"
    "  out=OxO        a requested output size (output_shape, output_size)\n"
    "  conv=C         whose rules resolve auto_pad and out into pad and op: onnx,\n"
    "                 tf, tvm, torch or mxnet (specification section 12)\n"
    "\n"
    "Examples:\n"
    "  iohw gen --problem 'n=2 ci=4 co=6 g=2 in=5x7 k=3x2 s=2x1 d=1x2 pad=1:0x0:1 op=1x0\n"
    "                      bias=1 dt=f32 xl=NHWC wl=OIHW fill=normal seed=7' -o case.h5\n"
    "  iohw gen --problem 'ci=3 co=5 in=8 k=4 s=2 fill=exact' \\\n"
    "           --problem 'ci=3 co=5 in=8 k=4 s=2 dt=f16 fill=exact' -o two.h5\n"
    "  iohw gen --problem 'ci=4 co=6 g=2 in=6 k=3 s=2 dt=u8 wdt=s8 zp=3,0,0 pc=1\n"
    "                      round=half_even sx=0.5' -o quant.h5\n"
    "  iohw show case.h5\n"
    "  iohw gen --profile smoke -o suite/ && iohw show suite/\n"
    "  iohw gen --profile ci --seed 7 -o ci-suite/ --threads 2\n"    "  iohw gen --profile smoke --for-backend ./libmine.so -o mine-suite/\n"
    "  iohw gen --problem 'ci=3 co=5 in=8 k=4 s=2' --definition -o def.h5\n";

/* 1 when text separates keys with commas ("ci=4,co=6"): a comma followed
 * by a word and '=' (a list value such as zp=3,0,0 has digits there). */
static int commas_between_keys(const char *text)
{
    for (const char *c = strchr(text, ','); c != NULL; c = strchr(c + 1, ',')) {
        size_t n = strspn(c + 1, "abcdefghijklmnopqrstuvwxyz_");
        if (n > 0 && c[1 + n] == '=')
            return 1;
    }
    return 0;
}

static int fail_usage_desc(const char *text, const iohw_error *e)
{
    return iohw_cli_usage("gen", "--problem '%s': %s%s", text, e->msg,
                          commas_between_keys(text) ? " (keys are separated by spaces, "
                          "not commas: 'ci=4 co=6 ...')" : "");
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

/* What the options asked for. */
typedef struct gen_options {
    const char *out;
    const char *id;
    const char **problems;        /* [nproblems] */
    int nproblems;
    const char *profile;
    const char *backend;          /* --for-backend */
    int threads;
    int list, dry_run, seed_given;
    uint64_t seed;
} gen_options;

static double percent(int64_t part, int64_t whole)
{
    return whole > 0 ? 100.0 * (double)part / (double)whole : 100.0;
}

/* --for-backend: what the claim is and what the suite holds of it. */
static void print_claim(FILE *out, const iohw_plan *plan, const iohw_cli_claim *cc)
{
    const iohw_claim *c = &cc->claim;
    fprintf(out, "claim: %lld of %lld pairs of factor values (%.1f%%); supports() "
            "asked %lld times, %lld rows accepted\n", (long long)c->pairs_claimed,
            (long long)c->pairs_coexisting, percent(c->pairs_claimed, c->pairs_coexisting),
            (long long)cc->probe.calls, (long long)c->accepted_rows);
    fprintf(out, "plain %s profile: %lld of %lld cases claimed, claimed-pair coverage "
            "%lld of %lld (%.1f%%)\n", plan->profile, (long long)plan->profile_claimed,
            (long long)plan->profile_cases, (long long)plan->profile_claim_covered,
            (long long)plan->claim_pairs,
            percent(plan->profile_claim_covered, plan->claim_pairs));
    fprintf(out, "this suite: %lld cases, all claimed, claimed-pair coverage %lld of %lld "
            "(%.1f%%)\n", (long long)plan->count, (long long)plan->claim_covered,
            (long long)plan->claim_pairs, percent(plan->claim_covered, plan->claim_pairs));
}

/* Plans the suite: the profile, or, with --for-backend, the profile
 * inside the backend's claim (learned in a child process). */
static int plan_suite(const gen_options *o, iohw_plan *plan)
{
    iohw_error e;
    if (o->backend == NULL) {
        if (iohw_plan_profile(o->profile, o->seed, plan, &e) != 0)
            return iohw_cli_usage("gen", "--profile: %s", e.msg);
        return IOHW_EXIT_OK;
    }
    if (iohw_profile_about(o->profile) == NULL)
        return iohw_cli_usage("gen", "--profile: unknown profile '%s' (expected smoke, "
                              "ci, full or models)", o->profile);
    iohw_cli_claim cc;
    if (iohw_cli_claim_learn(o->backend, &cc, stderr, &e) != 0) {
        iohw_cli_error("gen: --for-backend: %s", e.msg);
        return IOHW_EXIT_USAGE;
    }
    int rc = iohw_cli_claim_plan(&cc, o->profile, o->seed, plan, &e);
    if (rc != 0) {
        iohw_cli_error("gen: --for-backend: %s", e.msg);
    } else if (cc.claim.pairs_claimed == 0) {
        iohw_cli_error("gen: --for-backend: '%s' claims none of the %lld problems asked "
                       "(a backend that takes one layout permutation only may be run "
                       "with 'iohw run --adapt-layout' on a plain profile)", o->backend,
                       (long long)cc.probe.calls);
        iohw_plan_free(plan);
        rc = -1;
    } else {
        print_claim(o->dry_run ? stderr : stdout, plan, &cc);
    }
    iohw_cli_claim_free(&cc);
    return rc != 0 ? IOHW_EXIT_USAGE : IOHW_EXIT_OK;
}

/* --profile NAME: plans the suite, then prints its manifest (dry run) or
 * writes it into the directory and prints what it wrote. */
static int gen_profile(const gen_options *o)
{
    iohw_plan plan;
    iohw_suite_report r;
    iohw_error e;
    int status = plan_suite(o, &plan);

    if (status != IOHW_EXIT_OK)
        return status;
    if (o->dry_run) {
        if (iohw_plan_write_manifest(&plan, stdout, &e) != 0) {
            iohw_cli_error("gen: %s", e.msg);
            status = IOHW_EXIT_USAGE;
        }
        iohw_plan_free(&plan);
        return status;
    }

    printf("iohw gen: profile %s%s%s, seed %llu, %d thread%s -> %s\n", plan.profile,
           o->backend ? " for " : "", o->backend ? o->backend : "",
           (unsigned long long)o->seed, o->threads, o->threads == 1 ? "" : "s", o->out);
    fflush(stdout);
    if (iohw_suite_write(&plan, o->out, o->threads, stdout, &r, &e) != 0) {
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
           (long long)plan.pairs_covered, (long long)plan.pairs_coexisting,
           percent(plan.pairs_covered, plan.pairs_coexisting), plan.nfactors,
           plan.pairwise_rows);
    if (plan.bwd_pairs_covered > 0)
        printf("backward pairwise coverage: %lld of %lld pairs of backward factor values "
               "(%.1f%%), %d factors, %d covering-array rows\n",
               (long long)plan.bwd_pairs_covered, (long long)plan.bwd_pairs_coexisting,
               percent(plan.bwd_pairs_covered, plan.bwd_pairs_coexisting),
               plan.bwd_nfactors, plan.bwd_rows);
    iohw_plan_free(&plan);
    return status;
}

/* Reads the options into o; 0, 1 after printing the help, or -1 after a
 * usage error. */
static int parse_options(int argc, char **argv, gen_options *o)
{
    for (int i = 1; i < argc; i++) {
        const char *v = NULL;
        int r;
        if (iohw_cli_is_help(argv[i])) {
            fputs(iohw_cli_gen_help, stdout);
            return 1;
        }
        if ((r = iohw_cli_option("gen", argc, argv, &i, "--problem", NULL, &v)) != 0) {
            if (r < 0)
                return -1;
            o->problems[o->nproblems++] = v;
        } else if ((r = iohw_cli_option("gen", argc, argv, &i, "--output", "-o", &v)) != 0) {
            if (r < 0)
                return -1;
            o->out = v;
        } else if ((r = iohw_cli_option("gen", argc, argv, &i, "--id", NULL, &v)) != 0) {
            if (r < 0)
                return -1;
            o->id = v;
        } else if ((r = iohw_cli_option("gen", argc, argv, &i, "--threads", NULL, &v)) != 0) {
            if (r < 0 || iohw_cli_parse_threads("gen", v, &o->threads) != 0)
                return -1;
        } else if ((r = iohw_cli_option("gen", argc, argv, &i, "--profile", NULL, &v)) != 0) {
            if (r < 0)
                return -1;
            o->profile = v;
        } else if ((r = iohw_cli_option("gen", argc, argv, &i, "--for-backend", NULL,
                                        &v)) != 0) {
            if (r < 0)
                return -1;
            o->backend = v;
        } else if ((r = iohw_cli_option("gen", argc, argv, &i, "--seed", NULL, &v)) != 0) {
            if (r < 0 || parse_seed(v, &o->seed) != 0)
                return -1;
            o->seed_given = 1;
        } else if (strcmp(argv[i], "--list-profiles") == 0) {
            o->list = 1;
        } else if (strcmp(argv[i], "--dry-run") == 0) {
            o->dry_run = 1;
        } else if (strcmp(argv[i], "--definition") == 0) {
            setenv(IOHW_ORACLE_ENV, "definition", 1);
        } else {
            if (argv[i][0] == '-')
                iohw_cli_unknown_option("gen", argv[i], iohw_cli_gen_help);
            else
                iohw_cli_usage("gen", "unexpected argument '%s'", argv[i]);
            return -1;
        }
    }
    return 0;
}

/* --list-profiles and --profile: checks what does not apply, then lists
 * or writes. */
static int gen_suites(const gen_options *o)
{
    if (o->nproblems > 0)
        return iohw_cli_usage("gen", "--problem cannot be combined with %s",
                              o->list ? "--list-profiles" : "--profile");
    if (o->id != NULL)
        return iohw_cli_usage("gen", "--id applies to --problem, not to suites");
    if (o->list)
        return o->backend != NULL
               ? iohw_cli_usage("gen", "--for-backend applies to --profile")
               : list_profiles();
    if (o->out == NULL && !o->dry_run)
        return iohw_cli_usage("gen", "missing -o DIR for --profile %s", o->profile);
    if (o->backend != NULL && o->backend[0] == '\0')
        return iohw_cli_usage("gen", "--for-backend: empty path");
    return gen_profile(o);
}

/* --problem: checks the options, parses every descriptor and checks the
 * ids before anything is written; descs gets nproblems problems. */
static int check_problems(const gen_options *o, iohw_desc *descs)
{
    iohw_error e;
    if (o->seed_given || o->dry_run || o->backend != NULL)
        return iohw_cli_usage("gen", "%s applies to --profile%s",
                              o->seed_given ? "--seed" : o->dry_run ? "--dry-run"
                              : "--for-backend",
                              o->backend == NULL ? "; a descriptor sets its own seed=" : "");
    if (o->nproblems == 0)
        return iohw_cli_usage("gen", "missing --problem 'DESCRIPTOR' (or --profile NAME)");
    if (o->out == NULL)
        return iohw_cli_usage("gen", "missing -o FILE");
    for (int j = 0; j < o->nproblems; j++)
        if (iohw_desc_parse(o->problems[j], &descs[j], &e) != 0)
            return fail_usage_desc(o->problems[j], &e);
    if (o->id != NULL) {
        char probe[IOHW_CASE_ID_MAX + 32];
        snprintf(probe, sizeof probe, o->nproblems == 1 ? "%s" : "%s.0", o->id);
        if (strlen(o->id) + 12 >= IOHW_CASE_ID_MAX || !iohw_case_id_valid(probe))
            return iohw_cli_usage("gen", "--id '%s': ids use letters, digits, '.', '_' "
                                  "and '-' (at most %d characters)", o->id,
                                  IOHW_CASE_ID_MAX - 13);
    }
    return IOHW_EXIT_OK;
}

/* Makes and writes one case per problem; on failure removes the file (no
 * half-written files). */
static int write_problems(const gen_options *o, const iohw_desc *descs)
{
    iohw_error e;
    iohw_case_file *f = iohw_case_file_create(o->out, &e);
    if (f == NULL) {
        iohw_cli_error("gen: %s", e.msg);
        return IOHW_EXIT_USAGE;
    }
    for (int j = 0; j < o->nproblems; j++) {
        char case_id[IOHW_CASE_ID_MAX];
        iohw_case c;
        if (o->id == NULL)
            snprintf(case_id, sizeof case_id, "problem.%d", j);
        else
            snprintf(case_id, sizeof case_id, o->nproblems == 1 ? "%s" : "%s.%d", o->id, j);
        if (iohw_make_case(&descs[j], case_id, NULL, o->threads, &c, &e) != 0)
            goto fail;
        if (iohw_case_file_write(f, &c, &e) != 0) {
            iohw_case_free(&c);
            goto fail;
        }
        printf("%s:%s  %s\n", o->out, c.id, c.descriptor);
        iohw_case_free(&c);
    }
    int closed = iohw_case_file_close(f, &e);
    f = NULL;
    if (closed == 0)
        return IOHW_EXIT_OK;
fail:
    iohw_cli_error("gen: %s", e.msg);
    if (f != NULL)
        iohw_case_file_close(f, NULL);
    unlink(o->out);
    return IOHW_EXIT_USAGE;
}

int iohw_cli_gen(int argc, char **argv)
{
    gen_options o;
    memset(&o, 0, sizeof o);
    o.threads = iohw_cli_default_threads();
    o.seed = 1;
    o.problems = malloc((size_t)argc * sizeof *o.problems);
    if (o.problems == NULL) {
        iohw_cli_error("gen: out of memory");
        return IOHW_EXIT_USAGE;
    }

    int status = IOHW_EXIT_USAGE;
    iohw_desc *descs = NULL;
    int r = parse_options(argc, argv, &o);
    if (r != 0) {
        status = r > 0 ? IOHW_EXIT_OK : IOHW_EXIT_USAGE;
    } else if (o.list || o.profile != NULL) {
        status = gen_suites(&o);
    } else if ((descs = calloc((size_t)(o.nproblems > 0 ? o.nproblems : 1),
                               sizeof *descs)) == NULL) {
        iohw_cli_error("gen: out of memory");
    } else if ((status = check_problems(&o, descs)) == IOHW_EXIT_OK) {
        status = write_problems(&o, descs);
    }
    free(descs);
    free(o.problems);
    return status;
}
