/* limits.c — the operator's ceilings on what an HTTP client may ask for
 * (PRODUCT.md §8, "Operators set ceilings").
 *
 * `folio session new` and `folio run` take a memory of 1 TiB or a timeout
 * of a day from whoever runs them; over HTTP that is whoever holds a token,
 * so folio serve bounds each limit a request names: POST /v1/sessions
 * (memory, disk, timeout, cpus, idle, pids), an exec's timeout, and
 * /v1/run's timeout. `--session-limits memory=MB,disk=MB,timeout=S,cpus=N,
 * idle=S,pids=N` and `--run-limits timeout=S` set them over the defaults
 * below. A value that is not a finite number above zero, or over its
 * ceiling, is answered 400 naming the JSON field and the ceiling. A request
 * that leaves a limit out gets folio's default, or the ceiling when that is
 * lower (sessions.c, runs.c). */
#define FO_SERVE_PRIVATE
#define FO_SANDBOX_PRIVATE
#include "serve/serve.h"
#include "serve/http.h"
#include "sandbox/sandbox.h"
#include "base/usage.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Each limit: its key, unit, the range an operator may set (folio's own
   bounds for the option), and whether /v1/run takes it. */
static const struct {
    const char *key, *unit;
    double lo, hi;
    int run;
} limits[FO_LIMIT_N] = {
    [FO_LIMIT_MEMORY] = { "memory", "MB", 16, 1 << 20, 0 },
    [FO_LIMIT_DISK] = { "disk", "MB", 1, 1e7, 0 },
    [FO_LIMIT_TIMEOUT] = { "timeout", "s", 0.1, 86400, 1 },
    [FO_LIMIT_CPUS] = { "cpus", "CPUs", 0.01, 1024, 0 },
    [FO_LIMIT_IDLE] = { "idle", "s", 1, 1e7, 0 },
    [FO_LIMIT_PIDS] = { "pids", "processes", 2, 65536, 0 },
};

#define IDLE_DEFAULT 1800     /* `folio session new --idle`'s default (session_super.c) */

int fo_serve_limit_index(const char *key)
{
    for (int k = 0; k < FO_LIMIT_N; k++)
        if (!strcmp(limits[k].key, key)) return k;
    return -1;
}

const char *fo_serve_limit_unit(int k)
{
    return k >= 0 && k < FO_LIMIT_N ? limits[k].unit : NULL;
}

double fo_serve_limit_default(int k, double memory_mb)
{
    fo_sandbox_plan p;
    double v = 0;

    if (k == FO_LIMIT_IDLE) return IDLE_DEFAULT;
    if (k == FO_LIMIT_DISK)
        return memory_mb;            /* a session's disk is its memory unless given */
    if (fo_sandbox_plan_defaults(&p) != 0) return 0;
    v = k == FO_LIMIT_MEMORY ? (double)p.memory_mb : k == FO_LIMIT_TIMEOUT ? p.timeout_s
      : k == FO_LIMIT_CPUS ? p.cpus : k == FO_LIMIT_PIDS ? (double)p.pids : 0;
    fo_sandbox_plan_free(&p);
    return v;
}

void fo_serve_limits_defaults(fo_serve_config *c)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN), pages = sysconf(_SC_PHYS_PAGES),
         page = sysconf(_SC_PAGESIZE);
    double ram_mb = pages > 0 && page > 0 ? (double)pages * (double)page / 1048576.0 : 0;
    double memory = 4 * fo_serve_limit_default(FO_LIMIT_MEMORY, 0);

    if (ram_mb >= limits[FO_LIMIT_MEMORY].lo && floor(ram_mb) < memory) memory = floor(ram_mb);
    c->session_max[FO_LIMIT_MEMORY] = memory;
    c->session_max[FO_LIMIT_DISK] = 4096;
    c->session_max[FO_LIMIT_TIMEOUT] = 600;
    c->session_max[FO_LIMIT_CPUS] = cores > 0 ? (double)cores : 1;
    c->session_max[FO_LIMIT_IDLE] = 86400;
    c->session_max[FO_LIMIT_PIDS] = 1024;
    for (int k = 0; k < FO_LIMIT_N; k++) c->run_max[k] = 0;
    c->run_max[FO_LIMIT_TIMEOUT] = 600;
}

int fo_serve_limits_parse(fo_serve_config *c, const char *opt, const char *spec)
{
    int run = !strcmp(opt, "--run-limits");
    double *max = run ? c->run_max : c->session_max;
    const char *p = spec;

    while (*p) {
        size_t n = strcspn(p, ","), eq = strcspn(p, "=");
        char key[16], val[64];
        double v;
        int k;

        if (eq >= n || eq >= sizeof key || n - eq - 1 >= sizeof val)
            return fo_usage_error("serve", "%s: expected KEY=VALUE,..., got \"%.*s\"", opt,
                                  (int)n, p);
        snprintf(key, sizeof key, "%.*s", (int)eq, p);
        snprintf(val, sizeof val, "%.*s", (int)(n - eq - 1), p + eq + 1);
        k = fo_serve_limit_index(key);
        if (k < 0 || (run && !limits[k].run))
            return fo_usage_error("serve", "%s: unknown key \"%s\" (keys: %s)", opt, key,
                                  run ? "timeout" : "memory, disk, timeout, cpus, idle, pids");
        if (fo_sandbox_parse_number(val, limits[k].lo, limits[k].hi, &v) < 0 ||
            (!strcmp(limits[k].unit, "MB") || k == FO_LIMIT_PIDS ? v != floor(v) : 0))
            return fo_usage_error("serve", "%s: %s needs a number from %g to %g (%s), not \"%s\"",
                                  opt, key, limits[k].lo, limits[k].hi, limits[k].unit, val);
        max[k] = v;
        p += n + (p[n] == ',');
    }
    return 0;
}

int fo_http_limit_ok(struct MHD_Connection *c, req *r, const char *field, double v,
                     double ceiling, const char *unit)
{
    char hint[300];

    if (!isfinite(v) || v <= 0) {
        snprintf(hint, sizeof hint, "\"%s\" is a number of %s above 0, at most %g", field, unit,
                 ceiling);
        fo_http_refuse_field(c, r, 400, "bad_value", "bad_value", field, ceiling, hint,
                             "\"%s\" must be a finite number above 0, not %g", field, v);
        return 0;
    }
    if (v > ceiling) {
        snprintf(hint, sizeof hint, "send \"%s\" of at most %g (%s), or leave it out for the "
                 "default", field, ceiling, unit);
        fo_http_refuse_field(c, r, 400, "over_ceiling", "over_ceiling", field, ceiling, hint,
                             "\"%s\" of %g %s is over this server's ceiling of %g %s", field, v,
                             unit, ceiling, unit);
        return 0;
    }
    return 1;
}

int fo_http_limit_text(struct MHD_Connection *c, req *r, const char *field, const char *text,
                       double ceiling, const char *unit, double *out)
{
    char hint[300];

    if (fo_sandbox_parse_number(text, -INFINITY, INFINITY, out) < 0 || !isfinite(*out)) {
        snprintf(hint, sizeof hint, "\"%s\" is a decimal number of %s above 0, at most %g", field,
                 unit, ceiling);
        fo_http_refuse_field(c, r, 400, "bad_value", "bad_value", field, ceiling, hint,
                             "\"%s\" must be a decimal number, not \"%.60s\"", field, text);
        return 0;
    }
    return fo_http_limit_ok(c, r, field, *out, ceiling, unit);
}
