/* environment.c — GET /v1/environment: what a cell can import and install
 * (PRODUCT.md §11, docs/environment.md), the JSON of `folio env --json`:
 * the static folio lists the jail's packages from inside a jail and caches
 * the listing in the runtime folder until the system's packages change, so
 * an answer after the first is a fork, an exec and a few stat calls. */
#define FO_SERVE_PRIVATE
#include "serve/serve.h"
#include "serve/http.h"
#include "folio.h"

#include <stdlib.h>
#include <string.h>

void fo_http_environment(fo_serve_state *s, struct MHD_Connection *c, req *r)
{
    const char *argv[] = { s->cfg.folio, "env", "--json", NULL };
    char *text;
    int code = 5;

    if (!s->cfg.folio) {
        fo_http_refuse(c, r, 503, "no_folio", "install folio whole (bin/folio beside "
                       "libexec/folio/)", "the static folio binary, which lists the "
                       "environment in a jail, was not found");
        return;
    }
    text = fo_serve_run_folio(argv, &code);
    if (!text || code != 0 || text[0] != '{') {
        fo_http_refuse(c, r, 500, "environment_failed", "run `folio env` on the server to see why",
                       "can't list the environment (folio env exited %d)", code);
        fo_free(text);
        return;
    }
    fo_http_send_text(c, r, 200, "application/json", text, strlen(text));
    fo_free(text);
}
