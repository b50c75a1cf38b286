/* session_super.h — the supervisor's state, shared by session_super.c (life
 * cycle, requests) and session_exec.c (the kernel: cells, hibernation).
 * Private to sandbox/session*.c; needs FO_SANDBOX_PRIVATE's types. */
#ifndef FO_SESSION_SUPER_H
#define FO_SESSION_SUPER_H

#include <stdint.h>

#include "sandbox/egress/egress.h"

/* A frame from the kernel, read incrementally from a non-blocking pipe. */
typedef struct {
    unsigned char hdr[5];
    size_t hn;                    /* header bytes read */
    char *buf;                    /* FO_SESSION_MAX_KFRAME + 1 */
    size_t need, got;
} fo_kframe;

typedef struct {
    int rt, dir;                  /* runtime folder and RT/ID */
    char id[33];
    fo_sandbox_plan plan;
    const char *engine;           /* folio-engine (render), or NULL */
    const char *kernel_src;       /* folio_kernel.py, embedded, NUL-terminated */
    size_t kernel_len;            /* with the NUL */
    double idle_s;
    unsigned max_sessions;
    fo_sandbox_jail j;
    fo_egress_proxy px;           /* --net packages / allow=: the session's proxy */
    int net_allow;                /* the plan's net was FO_NET_ALLOW (the plan is freed) */
    long long egress_off;         /* px.log_fd read up to here into the record */
    fo_kframe kf;
    unsigned cells;
    int kernel_lost;              /* died between cells: the next exec says so */
    char python[32];
    fo_sandbox_collection outs;   /* /out after the last cell */
    long oom_kills;               /* the cgroup's count after the last cell */
    fo_buf not_restored;  /* JSON items for the first exec after a resume */
    int resumed;
    double busy_since;            /* the running cell's start */
    int yielded;                  /* its cpu.weight lowered (1), not possible (-1), not yet (0) */
    int spare;                    /* started ahead (RT/spares/ID): no slot until claimed */
    int slot_fd[2];               /* the flock'ed slots (RT/slots/N, the host's), or -1 */
    int ctl;                      /* RT/ID/ctl, listening: control requests, or -1 */
    int in_cell;                  /* a cell runs (fo_session_exec_cell) */
    int interrupt;                /* a control request asked to interrupt it */
    int state;                    /* the shared state folder (--state-dir), or -1 */
    int src;                      /* where a resume reads its saved state: dir or a snapshot */
    const char *from;             /* a resume's source: "hibernation" or "checkpoint" */
    double checkpoint_s;          /* idle seconds before a checkpoint (state folder only) */
    int dirty;                    /* requests since the last checkpoint */
    pid_t renewer;                /* the child renewing our lease, or 0 */
} fo_session;

/* A MIME bundle being assembled from the kernel's 'b' / 'm' / 'B' frames
   (session_bundle.c). Zeroed to start; fo_session_bundle_free at the end. */
typedef struct {
    fo_buf json;                  /* {"data": {...}, "metadata": {...}} once ended */
    fo_buf val;                   /* the representation being gathered */
    fo_buf plain;                 /* its text/plain, raw, for a terminal */
    fo_buf dropped;               /* JSON items: forms left out, with the reason */
    char mime[64];
    char path[256];               /* a figure also saved below /out, or "" */
    char kind;                    /* 'd' display, 'x' the last expression's value */
    int open, over;
    unsigned entries;
    size_t bytes, room;           /* JSON written, and the most it may hold */
} fo_bundle;

/* 'b': a bundle begins (payload: kind, then optionally NUL and a path);
   room: the bytes the cell may still spend on bundles. */
void fo_session_bundle_begin(fo_bundle *b, const char *p, size_t n, size_t room);
/* 'm': "mime\0data", appended to the form of that mime. */
void fo_session_bundle_add(fo_bundle *b, const char *p, size_t n);
/* 'B': the bundle ends; b->json holds it. 0, or -1 (none open, no memory). */
int fo_session_bundle_end(fo_bundle *b);
void fo_session_bundle_free(fo_bundle *b);
/* JSON array of the display bundles; one whose figure is a regular file of
   out also says "mime": "image/png", "path": "/out/...", "bytes", "sha256". */
void fo_session_displays(fo_buf *b, const fo_sandbox_collection *out, const fo_bundle *d,
                         size_t n);
/* A strict RFC 8259 check, nesting at most 64 deep. 1 when p..p+n is JSON. */
int fo_session_json_valid(const char *p, size_t n);

/* session_super.c: put fd's file at /work/DEST; get PATH (/work or /out)
   as a descriptor. Each answers on cfd. */
void fo_session_put_file(fo_session *s, int cfd, const char *dest, int fd);
void fo_session_get_file(fo_session *s, int cfd, const char *path);

/* session_exec.c */
/* Waits for the kernel's ready frame ('k'). 0, or -1 (it died, or timeout). */
int fo_session_kernel_hello(fo_session *s, int timeout_ms);
/* Restarts the kernel in the same jail (files kept, variables lost). 0 or -1. */
int fo_session_kernel_restart(fo_session *s);
/* Runs one request frame of the exec verb and answers on cfd. */
void fo_session_exec_cell(fo_session *s, int cfd, const char *p, size_t n);
/* Answers one connection of the control socket (s->ctl), read while a
   cell runs as well as between cells: 'I' interrupt sets s->interrupt when
   a cell runs (the cell's loop acts on it); 'p' put and 'g' get are served
   at once, so that a file goes in or out while a cell runs. A spare not yet
   claimed answers nothing (the client goes through the request socket).
   Returns the request's type, 0 when none was served. */
char fo_session_control(fo_session *s);
/* Sends a command ('h' hibernate, 'r' restore) and collects the names the
   kernel reports ('u') as JSON items into b, until its end frame. 0 or -1. */
int fo_session_kernel_command(fo_session *s, char cmd, fo_buf *b, int timeout_ms);

#endif
