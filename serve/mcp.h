/* mcp.h — folio as a tool for any assistant: a Model Context Protocol
 * server (PRODUCT.md §10, docs/mcp.md), protocol revision 2025-11-25 (also
 * answers clients of 2025-06-18 and 2025-03-26).
 *
 *   mcp.c        the protocol core: JSON-RPC messages, the lifecycle,
 *                tools/list, resources, cancellation and progress;
 *                independent of the transport
 *   mcp_tools.c  the tools, each on the session client API (sandbox/session.h)
 *                and libfolio (validate): run_python, put_file, get_file,
 *                list_files, render, validate_spec, restart_session,
 *                environment
 *   mcp_stdio.c  `folio mcp`: newline-delimited JSON-RPC on stdin/stdout
 *   mcp_http.c   `folio serve`'s /mcp: the streamable HTTP transport
 *
 * One fo_mcp is one MCP session: it owns at most one folio session (made at
 * the first tool that needs it, with the options the server was started
 * with; nothing in a tool call widens them) and closes it when freed. An
 * idle folio session hibernates as any other (§6) and resumes at the next
 * call. Private to serve/. */
#ifndef FO_SERVE_MCP_H
#define FO_SERVE_MCP_H

#include <stddef.h>

#define FO_MCP_PROTOCOL "2025-11-25"
/* The largest JSON-RPC message read from a client (a put_file of a file at
   the default 30 MiB ceiling is 40 MiB of base64). */
#define FO_MCP_MAX_MESSAGE (48u << 20)

typedef struct fo_mcp fo_mcp;

typedef struct {
    char *const *session_argv;   /* `folio session new` options: the policy (borrowed) */
    int session_argc;
    const char *scratch;         /* a 0700 folder for this MCP session's renders (copied);
                                    made by fo_mcp_new, removed by fo_mcp_free */
    int no_spares;               /* 1: start sessions cold (fo_session_new.cold) */
} fo_mcp_config;

/* Sends one JSON-RPC message (a response or a notification, compact JSON,
   no newline) to the client. Called from the thread that handles a message;
   the transport serialises concurrent calls. */
typedef void (*fo_mcp_send_fn)(void *ud, const char *json, size_t len);

/* A new MCP session, or NULL (out of memory, or the scratch folder can't be
   made). */
fo_mcp *fo_mcp_new(const fo_mcp_config *cfg);
/* Cancels every call in flight: no answer is sent for them, and their
   cells are interrupted (when the session layer can, see mcp.c). */
void fo_mcp_cancel(fo_mcp *m);
/* Interrupts what runs, waits for the calls in flight to end, closes the
   folio session (if any) and frees. NULL: no-op. */
void fo_mcp_free(fo_mcp *m);

/* Handles one message from the client (a request, a notification or a
   response; a batch is refused as the 2025-11-25 revision says). A request's
   answer, and the notifications made while it runs (progress), go through
   send; a notification or a response gets nothing back. Blocks while a tool
   runs; safe to call from several threads at once on the same m. Returns 1
   when the message was a request (an answer was or will be sent, unless
   it is cancelled), 0 otherwise. */
int fo_mcp_handle(fo_mcp *m, const char *msg, size_t len, fo_mcp_send_fn send, void *ud);

/* Message classification for transports: 'R' a request, 'N' a notification,
   'S' a response from the client, 'I' initialize, 0 unreadable. */
int fo_mcp_kind(const char *msg, size_t len);

/* `folio mcp [session options]`: the stdio transport. Exit code. */
int fo_mcp_main(int argc, char **argv, const char *engine);
/* The static folio beside the engine (server.c), which runs supervisors. */
const char *fo_serve_find_folio(const char *engine);

/* ======================= private to serve/mcp*.c ======================= */
#ifdef FO_MCP_PRIVATE
#include <jansson.h>
#include <pthread.h>
#include "sandbox/session.h"

/* What a tool sees of the call it serves. */
typedef struct fo_mcp_call fo_mcp_call;

/* Progress for the call, when its request carried a progressToken (else a
   no-op): progress is counted by the core (strictly increasing), message is
   shown to the user. */
void fo_mcp_progress(fo_mcp_call *c, const char *message);
/* 1 once the client cancelled the call. */
int fo_mcp_cancelled(fo_mcp_call *c);

/* The MCP session's folio session (started now if it has none): its id in
   id; 0, or -1 with err filled. */
int fo_mcp_session(fo_mcp *m, char id[33], fo_session_error *err);
/* Ends the folio session (a fresh one starts at the next call). */
void fo_mcp_session_drop(fo_mcp *m);
/* The session's limits ("timeout_s", "max_bytes"...): borrowed, or NULL
   before the first session. */
double fo_mcp_limit(fo_mcp *m, const char *key, double dflt);
const char *fo_mcp_scratch(fo_mcp *m);

/* A tool: its schema (JSON text) and its function, which returns a
   CallToolResult object (new reference); an error is a result with isError. */
typedef json_t *(*fo_mcp_tool_fn)(fo_mcp *m, fo_mcp_call *c, json_t *args);
typedef struct {
    const char *name, *title, *description, *input_schema;
    int read_only, destructive, idempotent;
    fo_mcp_tool_fn fn;
} fo_mcp_tool;

/* mcp_tools.c: the table of tools, NULL-terminated by name. */
extern const fo_mcp_tool fo_mcp_tools[];

/* The result {"content": [{"type": "text", ...}], "isError": true} of a
   failure: message and hint, in the words a model acts on. */
json_t *fo_mcp_tool_error(const char *code, const char *message, const char *hint);
/* The same from a session failure. */
json_t *fo_mcp_session_error(const fo_session_error *e);

/* resources/read of a folio:// URI (mcp_tools.c): a ReadResourceResult, or
   NULL with *code and why set for a JSON-RPC error. */
json_t *fo_mcp_resource_read(fo_mcp *m, const char *uri, int *code, char *why, size_t len);
/* resources/list: every file of the session's /work and /out, and the renders. */
json_t *fo_mcp_resource_list(fo_mcp *m);

#endif /* FO_MCP_PRIVATE */
#endif
