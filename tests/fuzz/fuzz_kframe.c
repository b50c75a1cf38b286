/* fuzz_kframe.c — what a session's kernel sends back (sandbox/session_exec.c):
 * its frames, read from the jail's pipe, parsed and assembled into the exec
 * result. The kernel runs the user's code and is not trusted: any bytes must
 * give either a closed channel or frames whose result is valid, bounded JSON.
 * Includes session_exec.c for its static reader; linked with the sandbox
 * library for the rest. */
#define FO_SANDBOX_PRIVATE
#define FO_SESSION_PRIVATE
#include "sandbox/session_exec.c"

#include <jansson.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static fo_session s;
    cell_run c;
    fo_buf b = { 0 }, files = { 0 };
    int p[2], r;
    char type;
    json_t *j;

    if (size > 60000 || pipe(p) < 0)          /* within one pipe's buffer */
        return 0;
    memset(&s, 0, sizeof s);
    memset(&c, 0, sizeof c);
    s.j.out_r = p[0];
    s.j.err_r = -1;
    s.j.out_dir = -1;
    c.cfd = -1;
    kframe_reset(&s);
    if (size && write(p[1], data, size) != (ssize_t)size) abort();
    close(p[1]);
    while ((r = kframe_next(&s.kf, p[0], &type)) == 1 && !c.ended) {
        if (s.kf.got > FO_SESSION_MAX_KFRAME) abort();
        on_frame(&c, type, s.kf.buf, s.kf.got);
    }
    result_json(&s, &c, 1, c.ended ? "ok" : "restarted", &(fo_buf){ 0 }, 1.0, &b, &files);
    j = b.data ? json_loadb(b.data, b.len, JSON_ALLOW_NUL, NULL) : NULL;   /* \u0000 is JSON */
    if (b.data && !b.failed && !j)
        abort();                               /* the result must always be JSON */
    json_decref(j);
    fo_buf_free(&b);
    fo_buf_free(&files);
    cell_free(&c);
    fo_sandbox_collection_free(&s.outs);
    free(s.kf.buf);
    close(p[0]);
    return 0;
}
