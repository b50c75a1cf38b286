/* plan.c — `folio run` options -> fo_sandbox_plan. Parsing only: nothing is
 * opened, created or changed here, so the plan can be checked before any act. */
#define FO_SANDBOX_PRIVATE
#include "sandbox/sandbox.h"
#include "sandbox/egress/egress.h"
#include "base/usage.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_IN 256

static const char *const known_formats[] = { "xlsx", "docx", "pptx", "pdf", "png" };

void fo_sandbox_usage(FILE *f)
{
    fputs("usage: folio run [--in FILE|DIR]... [--out DIR] [--render xlsx,pdf,...]\n"
          "                 [--timeout SEC] [--memory MB] [--max-bytes N] [--max-total N]\n"
          "                 [--pids N] [--cpus N] [--sign KEY.pem]\n"
          "                 [--net none|all|packages|allow=LIST] [--net-resolve HOST=ADDR[:PORT]]\n"
          "                 [--json] [--quiet] -- CMD [ARG...]\n"
          "       folio run --net-list packages\n"
          "\n"
          "Runs CMD in a jail: new user/PID/mount/network/IPC/UTS/cgroup namespaces,\n"
          "read-only system folders, no capabilities, seccomp. --in files and folders\n"
          "are copied into /work (the current directory): --in data/x.csv is x.csv\n"
          "there, --in data is data/...; files the program writes to /out (subfolders\n"
          "too) are collected (regular files only, each within --max-bytes) into --out DIR with\n"
          "manifest.json. If /out/result.json exists it is rendered to the --render\n"
          "formats in a second jail.\n"
          "  --timeout SEC   wall-clock limit (default 60)\n"
          "  --memory MB     memory limit (default 1024)\n"
          "  --max-bytes N   ceiling per file in and out (default 31457280)\n"
          "  --max-total N   all files collected from /out together, by apparent size\n"
          "                  (default 4 x --max-bytes)\n"
          "  --pids N        process limit (default 256)\n"
          "  --cpus N        CPU time limit, in CPUs; decimals allowed (default 1)\n"
          "  --net none      private loopback only (default); --net all: host network (UNSAFE)\n"
          "  --net packages  only the package indexes, through folio's egress proxy\n"
          "  --net allow=LIST  names (a.com, *.a.com, packages) through the proxy\n"
          "  --net-resolve HOST=ADDR[:PORT]  the proxy connects there for HOST (caller only)\n"
          "  --sign KEY.pem  also write DIR/manifest.dsse.json: the record as an in-toto\n"
          "                  Statement in a DSSE envelope, signed with this Ed25519 key\n"
          "                  (needs --out; check with folio verify; docs/provenance.md)\n"
          "  --json          print manifest.json on stdout (program stdout goes to stderr)\n"
          "  --quiet         do not echo the program's output (it is still kept)\n"
          "exit: 0 ok, 1 usage, 2 invalid input, 3 over ceiling, 4 program failed,\n"
          "      timed out or killed, 5 internal error\n", f);
}

/* A bad option: printed as `folio run`'s usage error, or, when the caller
   gave p->why (folio session new), kept there instead ("--memory: ...") for
   the caller to report. FO_RUN_USAGE. */
__attribute__((format(printf, 2, 3)))
static int bad(fo_sandbox_plan *p, const char *fmt, ...)
{
    char msg[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (p->why && p->why_len) {
        snprintf(p->why, p->why_len, "%s", msg);
        return FO_RUN_USAGE;
    }
    return fo_usage_error("run", "%s", msg);
}

/* Parses a positive integer within [1, max]; -1 on error. */
static int parse_u64(const char *s, uint64_t max, uint64_t *out)
{
    char *end;
    unsigned long long v;

    if (*s < '0' || *s > '9') return -1;
    errno = 0;
    v = strtoull(s, &end, 10);
    if (errno || *end || v == 0 || v > max) return -1;
    *out = v;
    return 0;
}

int fo_sandbox_parse_number(const char *s, double lo, double hi, double *out)
{
    char *end;
    double v;

    errno = 0;
    v = strtod(s, &end);
    if (errno || end == s || *end || !(v >= lo && v <= hi)) return -1;
    *out = v;
    return 0;
}

/* Parses a decimal number within (lo, hi]; -1 on error. */
static int parse_decimal(const char *s, double lo, double hi, double *out)
{
    double v;

    if (fo_sandbox_parse_number(s, lo, hi, &v) < 0 || !(v > lo)) return -1;
    *out = v;
    return 0;
}

static int parse_render(fo_sandbox_plan *p, const char *list)
{
    const char *s = list;

    while (*s) {
        size_t n = strcspn(s, ","), k;
        int found = 0;

        for (k = 0; k < sizeof known_formats / sizeof *known_formats; k++)
            if (strlen(known_formats[k]) == n && !strncmp(s, known_formats[k], n)) found = 1;
        if (!found)
            return bad(p, "--render: unknown format in \"%s\" (xlsx, docx, pptx, pdf, png)",
                                  list);
        for (k = 0; k < p->n_render; k++)
            if (!strncmp(p->render[k], s, n) && p->render[k][n] == 0)
                found = 0;             /* duplicate: keep one */
        if (found) {
            memcpy(p->render[p->n_render], s, n);
            p->render[p->n_render++][n] = 0;
        }
        s += n;
        if (*s == ',') s++;
    }
    if (p->n_render == 0) return bad(p, "--render: no format in \"%s\"", list);
    return FO_RUN_OK;
}

/* The egress policy, created on first use. NULL when out of memory. */
static fo_egress_policy *egress_policy(fo_sandbox_plan *p)
{
    if (!p->egress) p->egress = fo_calloc(1, sizeof *p->egress);
    return p->egress;
}

/* --net none|all|packages|allow=LIST, --net-resolve HOST=ADDR[:PORT]. Lists
   accumulate over repeated options; none or all drop them. */
static int apply_net(fo_sandbox_plan *p, const char *opt, const char *val)
{
    const char *err = NULL, *list = !strcmp(val, "packages") ? val
                                  : !strncmp(val, "allow=", 6) ? val + 6 : NULL;

    if (!strcmp(opt, "--net-resolve")) {
        if (!egress_policy(p)) return bad(p, "%s", "out of memory");
        if (fo_egress_policy_pin(p->egress, val, &err) < 0) return bad(p, "--net-resolve %s: %s", val, err);
        return FO_RUN_OK;
    }
    if (!strcmp(val, "none") || !strcmp(val, "all")) {
        p->net = val[0] == 'n' ? FO_NET_NONE : FO_NET_ALL;
        if (p->egress) p->egress->n_rules = 0;
        return FO_RUN_OK;
    }
    if (!list) return bad(p, "--net: expected none, all, packages or allow=LIST, got \"%s\"", val);
    if (!egress_policy(p)) return bad(p, "%s", "out of memory");
    if (fo_egress_policy_add(p->egress, list, &err) < 0) return bad(p, "--net %s: %s", val, err);
    p->net = FO_NET_ALLOW;
    return FO_RUN_OK;
}

/* --net-list packages: the preset, one name a line. */
static int net_list(const char *val)
{
    size_t k;

    if (strcmp(val, "packages"))
        return fo_usage_error("run", "--net-list: the only preset is \"packages\", got \"%s\"", val);
    for (k = 0; fo_egress_packages[k]; k++) printf("%s\n", fo_egress_packages[k]);
    return FO_RUN_OK;
}

/* One option with its value. Returns FO_RUN_OK or FO_RUN_USAGE. */
int fo_sandbox_plan_option(fo_sandbox_plan *p, const char *opt, const char *val)
{
    uint64_t v;

    if (!strcmp(opt, "--in")) {
        if (p->n_in_paths >= MAX_IN) return bad(p, "too many --in files (max %d)", MAX_IN);
        ((const char **)p->in_paths)[p->n_in_paths++] = val;
    } else if (!strcmp(opt, "--out")) {
        p->out_dir = val;
    } else if (!strcmp(opt, "--sign")) {
        p->sign_key = val;
    } else if (!strcmp(opt, "--render")) {
        return parse_render(p, val);
    } else if (!strcmp(opt, "--timeout")) {
        if (parse_decimal(val, 0, 86400, &p->timeout_s))
            return bad(p, "--timeout: expected seconds in (0, 86400], got \"%s\"", val);
    } else if (!strcmp(opt, "--cpus")) {
        if (parse_decimal(val, 0, 1024, &p->cpus) || p->cpus < 0.01)
            return bad(p, "--cpus: expected CPUs in [0.01, 1024], got \"%s\"", val);
    } else if (!strcmp(opt, "--memory")) {
        if (parse_u64(val, 1u << 20, &v) || v < 16)
            return bad(p, "--memory: expected megabytes in 16..%u, got \"%s\"", 1u << 20, val);
        p->memory_mb = v;
    } else if (!strcmp(opt, "--max-bytes")) {
        if (parse_u64(val, (uint64_t)1 << 40, &v))
            return bad(p, "--max-bytes: expected a positive byte count (at most 2^40), got \"%s\"", val);
        p->max_bytes = v;
    } else if (!strcmp(opt, "--max-total")) {
        if (parse_u64(val, (uint64_t)1 << 42, &v))
            return bad(p, "--max-total: expected a positive byte count, got \"%s\"", val);
        p->max_total = v;
    } else if (!strcmp(opt, "--pids")) {
        if (parse_u64(val, 65536, &v) || v < 2) return bad(p, "--pids: expected 2..65536, got \"%s\"", val);
        p->pids = (unsigned)v;
    } else if (!strcmp(opt, "--net") || !strcmp(opt, "--net-resolve")) {
        return apply_net(p, opt, val);
    } else {
        return bad(p, "unknown option \"%s\"", opt);
    }
    return FO_RUN_OK;
}

int fo_sandbox_plan_defaults(fo_sandbox_plan *p)
{
    memset(p, 0, sizeof *p);
    p->in_paths = fo_calloc(MAX_IN, sizeof(char *));
    if (!p->in_paths) {
        fputs("folio: run: out of memory\n", stderr);
        return FO_RUN_INTERNAL;
    }
    p->in_dir = "work";
    p->timeout_s = 60;
    p->memory_mb = 1024;
    p->max_bytes = FO_DEFAULT_MAX_BYTES;
    p->pids = 256;
    p->nofile = 1024;
    p->cpus = 1;
    p->net = FO_NET_NONE;
    return FO_RUN_OK;
}

int fo_sandbox_plan_parse(fo_sandbox_plan *p, int argc, char **argv, int *help)
{
    static const char *const with_value[] = {
        "--in", "--out", "--render", "--timeout", "--memory", "--max-bytes", "--pids", "--net",
        "--max-total", "--cpus", "--net-resolve", "--net-list", "--sign"
    };
    int i, rc;

    *help = 0;
    if (fo_sandbox_plan_defaults(p) != FO_RUN_OK) return FO_RUN_INTERNAL;

    for (i = 1; i < argc; i++) {
        const char *a = argv[i], *eq;
        char opt[32];
        size_t k, n;
        int takes = 0;

        if (!strcmp(a, "--")) {
            i++;
            break;
        }
        if (a[0] != '-' || a[1] == 0)
            break;                         /* CMD without "--" */
        if (!strcmp(a, "--json")) { p->json = 1; continue; }
        if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) { p->quiet = 1; continue; }
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fo_sandbox_usage(stdout);
            *help = 1;
            return FO_RUN_OK;
        }
        eq = strchr(a, '=');
        n = eq ? (size_t)(eq - a) : strlen(a);
        if (n >= sizeof opt) return fo_usage_error("run", "unknown option \"%s\"", a);
        memcpy(opt, a, n);
        opt[n] = 0;
        for (k = 0; k < sizeof with_value / sizeof *with_value; k++)
            if (!strcmp(opt, with_value[k])) takes = 1;
        if (!takes) return fo_usage_error("run", "unknown option \"%s\"", a);
        if (!eq && i + 1 >= argc) return fo_usage_error("run", "%s needs a value", opt);
        if (!strcmp(opt, "--net-list")) {
            *help = 1;
            return net_list(eq ? eq + 1 : argv[i + 1]);
        }
        rc = fo_sandbox_plan_option(p, opt, eq ? eq + 1 : argv[++i]);
        if (rc != FO_RUN_OK) return rc;
    }
    if (p->egress && p->egress->n_pins && p->net != FO_NET_ALLOW)
        return fo_usage_error("run", "%s", "--net-resolve needs --net packages or --net allow=LIST");
    if (i >= argc) return fo_usage_error("run", "%s", "missing command: folio run [options] -- CMD [ARG...]");
    p->argv = argv + i;
    if (!p->max_total)
        p->max_total = 4 * p->max_bytes;  /* --max-total's default */
    return FO_RUN_OK;
}

void fo_sandbox_plan_free(fo_sandbox_plan *p)
{
    if (!p) return;
    fo_sandbox_files_free(p->in, p->n_in);
    fo_free((void *)p->in_paths);
    fo_free(p->egress);
    p->egress = NULL;
    p->in = NULL;
    p->in_paths = NULL;
    p->n_in = p->n_in_paths = 0;
}
