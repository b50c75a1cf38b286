/* metrics.c — what /metrics reports, in the Prometheus text format 0.0.4:
 * requests by route and status, a latency histogram per route, renders by
 * format, refusals by reason, and gauges handed in by the caller. Counters
 * are lock-free atomics: every request updates them. */
#define FO_SERVE_PRIVATE
#include "serve/serve.h"
#include "folio.h"
#include "base/buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const route_names[FO_ROUTE_N] = {
    "healthz", "metrics", "openapi", "render", "convert", "run", "sessions", "other"
};
static const unsigned statuses[] = { 200, 201, 204, 400, 401, 403, 404, 405, 408, 411, 413, 414, 415,
                                     410, 429, 431, 500, 501, 503, 504, 507 };
#define N_STATUS (sizeof statuses / sizeof *statuses)
static const double buckets[] = { 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1,
                                  2.5, 5, 10 };
#define N_BUCKET (sizeof buckets / sizeof *buckets)
static const char *const formats[] = { "xlsx", "docx", "pptx", "pdf", "png" };
#define N_FORMAT (sizeof formats / sizeof *formats)
static const char *const reasons[] = { "auth", "body_too_large", "too_many_parts", "bad_name",
                                       "bad_multipart", "content_type", "busy", "draining",
                                       "not_found", "method", "bad_request", "timeout",
                                       "ceiling", "invalid_spec",
                                       "session_not_found", "session_expired", "limit_reached",
                                       "restore_failed", "net_refused", "gone", "bad_framing",
                                       "over_ceiling", "bad_value" };
#define N_REASON (sizeof reasons / sizeof *reasons)

static atomic_ulong requests[FO_ROUTE_N][N_STATUS + 1];    /* last: any other status */
static atomic_ulong latency[FO_ROUTE_N][N_BUCKET + 1];     /* last: +Inf */
static atomic_ulong latency_us_sum[FO_ROUTE_N];
static atomic_ulong renders[N_FORMAT];
static atomic_ulong refusals[N_REASON];
static atomic_ulong runs, sessions_created;
static const char *const worker_ends[] = {"count",  "failure", "timeout", "unclean",
                                          "memory", "idle",    "evicted", "gone"};
#define N_WORKER_END (sizeof worker_ends / sizeof *worker_ends)
static atomic_ulong workers_started, renders_reused, workers_ended[N_WORKER_END];

const char *fo_serve_route_name(int route)
{
    return route >= 0 && route < FO_ROUTE_N ? route_names[route] : "other";
}

void fo_serve_metrics_request(int route, unsigned status, double seconds)
{
    size_t k;

    if (route < 0 || route >= FO_ROUTE_N) route = FO_ROUTE_OTHER;
    for (k = 0; k < N_STATUS && statuses[k] != status; k++)
        ;
    atomic_fetch_add(&requests[route][k], 1);
    for (k = 0; k < N_BUCKET && seconds > buckets[k]; k++)
        ;
    atomic_fetch_add(&latency[route][k], 1);
    atomic_fetch_add(&latency_us_sum[route], (unsigned long)(seconds * 1e6));
}

void fo_serve_metrics_render(const char *format)
{
    for (size_t k = 0; k < N_FORMAT; k++)
        if (!strcmp(formats[k], format)) atomic_fetch_add(&renders[k], 1);
}

void fo_serve_metrics_refusal(const char *reason)
{
    for (size_t k = 0; k < N_REASON; k++)
        if (!strcmp(reasons[k], reason)) atomic_fetch_add(&refusals[k], 1);
}

void fo_serve_metrics_run(void)
{
    atomic_fetch_add(&runs, 1);
}

void fo_serve_metrics_session(void)
{
    atomic_fetch_add(&sessions_created, 1);
}

void fo_serve_metrics_worker(const char *event)
{
    if (!strcmp(event, "started")) atomic_fetch_add(&workers_started, 1);
    else if (!strcmp(event, "reused")) atomic_fetch_add(&renders_reused, 1);
    for (size_t k = 0; k < N_WORKER_END; k++)
        if (!strcmp(worker_ends[k], event)) atomic_fetch_add(&workers_ended[k], 1);
}

static void put_workers(fo_buf *t)
{
    fo_buf_printf(t,
                  "# HELP folio_workers_started_total Reused render workers started (--reuse-workers).\n"
                  "# TYPE folio_workers_started_total counter\nfolio_workers_started_total %lu\n",
                  atomic_load(&workers_started));
    fo_buf_printf(t,
                  "# HELP folio_renders_reused_total Renders in a worker that had served before.\n"
                  "# TYPE folio_renders_reused_total counter\nfolio_renders_reused_total %lu\n",
                  atomic_load(&renders_reused));
    fo_buf_printf(t, "# HELP folio_workers_replaced_total Reused render workers ended, by reason.\n"
                     "# TYPE folio_workers_replaced_total counter\n");
    for (size_t k = 0; k < N_WORKER_END; k++)
        fo_buf_printf(t, "folio_workers_replaced_total{reason=\"%s\"} %lu\n", worker_ends[k],
                      atomic_load(&workers_ended[k]));
}

static void put_requests(fo_buf *t)
{
    fo_buf_printf(t, "# HELP folio_http_requests_total HTTP requests by route and status.\n"
           "# TYPE folio_http_requests_total counter\n");
    for (int r = 0; r < FO_ROUTE_N; r++)
        for (size_t k = 0; k <= N_STATUS; k++) {
            unsigned long v = atomic_load(&requests[r][k]);
            char status[8] = "other";
            if (!v) continue;
            if (k < N_STATUS) snprintf(status, sizeof status, "%u", statuses[k]);
            fo_buf_printf(t, "folio_http_requests_total{route=\"%s\",status=\"%s\"} %lu\n",
                route_names[r], status, v);
        }
}

static void put_latency(fo_buf *t)
{
    fo_buf_printf(t, "# HELP folio_http_request_duration_seconds Time from the first byte read to the last sent.\n"
           "# TYPE folio_http_request_duration_seconds histogram\n");
    for (int r = 0; r < FO_ROUTE_N; r++) {
        unsigned long cum = 0;
        for (size_t k = 0; k <= N_BUCKET; k++) {
            char le[16] = "+Inf";
            cum += atomic_load(&latency[r][k]);
            if (k < N_BUCKET) snprintf(le, sizeof le, "%g", buckets[k]);
            fo_buf_printf(t, "folio_http_request_duration_seconds_bucket{route=\"%s\",le=\"%s\"} %lu\n",
                route_names[r], le, cum);
        }
        fo_buf_printf(t, "folio_http_request_duration_seconds_sum{route=\"%s\"} %.6f\n", route_names[r],
            (double)atomic_load(&latency_us_sum[r]) / 1e6);
        fo_buf_printf(t, "folio_http_request_duration_seconds_count{route=\"%s\"} %lu\n", route_names[r], cum);
    }
}

char *fo_serve_metrics_text(long in_flight, long renders_running, long renders_queued,
                            long zygote_restarts, long sessions_live, long cells_running)
{
    fo_buf t = { 0 };
    size_t k;

    put_requests(&t);
    put_latency(&t);
    fo_buf_printf(&t, "# HELP folio_renders_total Files rendered, by format.\n# TYPE folio_renders_total counter\n");
    for (k = 0; k < N_FORMAT; k++)
        fo_buf_printf(&t, "folio_renders_total{format=\"%s\"} %lu\n", formats[k], atomic_load(&renders[k]));
    fo_buf_printf(&t, "# HELP folio_refusals_total Requests refused, by reason.\n# TYPE folio_refusals_total counter\n");
    for (k = 0; k < N_REASON; k++)
        fo_buf_printf(&t, "folio_refusals_total{reason=\"%s\"} %lu\n", reasons[k], atomic_load(&refusals[k]));
    fo_buf_printf(&t, "# HELP folio_requests_in_flight Requests being received, rendered or sent.\n"
            "# TYPE folio_requests_in_flight gauge\nfolio_requests_in_flight %ld\n", in_flight);
    fo_buf_printf(&t, "# HELP folio_renders_running Renders in a worker.\n"
            "# TYPE folio_renders_running gauge\nfolio_renders_running %ld\n", renders_running);
    fo_buf_printf(&t, "# HELP folio_renders_queued Renders waiting for a worker.\n"
            "# TYPE folio_renders_queued gauge\nfolio_renders_queued %ld\n", renders_queued);
    fo_buf_printf(&t, "# HELP folio_runs_total Sandboxed runs answered (POST /v1/run).\n"
            "# TYPE folio_runs_total counter\nfolio_runs_total %lu\n", atomic_load(&runs));
    fo_buf_printf(&t, "# HELP folio_sessions_created_total Sessions created (POST /v1/sessions).\n"
            "# TYPE folio_sessions_created_total counter\nfolio_sessions_created_total %lu\n",
        atomic_load(&sessions_created));
    fo_buf_printf(&t, "# HELP folio_sessions Live sessions of this instance (hibernated ones not counted).\n"
            "# TYPE folio_sessions gauge\nfolio_sessions %ld\n", sessions_live);
    fo_buf_printf(&t, "# HELP folio_cells_running Session cells running.\n"
            "# TYPE folio_cells_running gauge\nfolio_cells_running %ld\n", cells_running);
    fo_buf_printf(&t, "# HELP folio_zygote_restarts_total Times the render zygote was restarted.\n"
            "# TYPE folio_zygote_restarts_total counter\nfolio_zygote_restarts_total %ld\n",
        zygote_restarts);
    put_workers(&t);
    return fo_buf_take(&t, NULL);
}
