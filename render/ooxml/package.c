/* package.c — OOXML package writer: parts, relationships and content types
 * collected in memory, then written by libzip in a fixed order (package.h);
 * plus the package-level parts every document carries (core and app
 * properties, the DrawingML theme).
 *
 * Invariant: after the first error (p->err != FO_OK) nothing more is added;
 * fo_pkg_close reports that error and writes nothing. Part data stays owned
 * by the package until fo_pkg_free, because libzip reads its sources only
 * inside zip_close.
 *
 * Memory is bounded: once the parts held pass FO_PKG_HELD_BYTES, each
 * further part goes to the package's spill file (one anonymous temporary
 * file, gone when closed or when the process dies) and libzip reads it back
 * from there through spill_source. A deck of 3,000 sections (9,000 slides,
 * 470 MB of slide XML) peaked at 558 MB of RSS when every slide was held;
 * 109 MB now.
 *
 * A package may deflate its XML parts ahead, on a second thread, as they
 * are added (fo_pkg_deflate_ahead, "deflating ahead" below); the archive
 * is written into path itself (dest_src: "the archive's own file").
 *
 * Lookups are indexed once: part names and relationship sources live in hash
 * tables, and each source chains its relationships, so adding a part or a
 * relationship and writing every .rels part cost O(1) each. A deck of 20,000
 * headings (20,000 slides, 40,000 relationships) took 25 s with the linear
 * scans this replaced. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <libdeflate.h>
#include <zip.h>

#include "base/buf.h"
#include "base/thread.h"
#include "render/core/prov.h"
#include "render/ooxml/package.h"
#include "render/ooxml/zipsrc.h"
#include "render/core/templates.h"
#include "render/core/words.h"

typedef struct {
    char *name, *ct;     /* ct NULL: covered by a Default */
    unsigned char *data; /* owned copy, or NULL with xml, when spilled or
                             when handed to ahead */
    size_t len;
    fo_xml *xml;  /* finished writer (memory or file) */
    bool spilled; /* the len bytes are in the spill file at off */
    uint64_t off;
    struct ahead_job *ahead; /* deflated ahead by the packer thread, or NULL */
} part;

typedef struct {
    char *source, *id, *type, *target;
    bool external;
    size_t next; /* next relationship of the same source, or NONE */
} rel;

#define NONE ((size_t)-1)

/* One relationship source: its chain of rels (in call order) and count. */
typedef struct {
    size_t first, last, count;
} relsrc;

/* Open-addressing hash table from a borrowed string to an index. */
typedef struct {
    const char **keys;
    size_t *vals;
    size_t cap, n; /* cap: 0 or a power of two */
} strmap;

typedef struct {
    char *ext, *ct;
} deflt;

struct fo_pkg {
    char *path;
    fo_status err;
    char why[160];
    part *parts;
    size_t nparts, capparts;
    rel *rels;
    size_t nrels, caprels;
    relsrc *srcs; /* by index in srcmap */
    size_t nsrcs, capsrcs;
    strmap partmap; /* part name -> index in parts */
    strmap srcmap;  /* relationship source -> index in srcs */
    deflt *defs;
    size_t ndefs, capdefs;
    part *gen; /* generated at close: content types, then the package's
                             rels ([0, gen_head)), then each part's rels */
    size_t ngen, capgen, gen_head;
    size_t held, held_limit; /* bytes of parts held in memory; past the limit, spill */
    FILE *spill;             /* parts written out (NULL until the first) */
    uint64_t spill_len;
    struct packer *packer; /* fo_pkg_deflate_ahead: NULL when off */
    bool via_libzip;       /* fo_pkg_close_memory through libzip (tests) */
};

#ifndef FO_PKG_HELD_BYTES
#define FO_PKG_HELD_BYTES ((size_t)32 << 20)
#endif

/* ---- deflating ahead ----------------------------------------------------------
 * fo_pkg_deflate_ahead: a second thread deflates each XML part held in
 * memory as soon as it is added, while the renderer builds the next ones,
 * so that fo_pkg_close mostly copies bytes already packed. The bytes are
 * those pack() would make at close (the same libdeflate level over the same
 * input), so the archive is the same either way; only the time moves to
 * the other core. On the 50-section report deck deflate was 142 M of 467 M
 * instructions, all of it on the critical path at close.
 *
 * Every part held in memory that is deflated (not a JPEG) goes ahead, the
 * chart workbooks and pictures as well as the XML, and the job takes its
 * bytes: once packed, only the packed copy (XML shrinks ~10:1) is kept for
 * close. The parts the package makes itself ([Content_Types].xml, the
 * .rels) are made when close starts and queued like the others, so both
 * cores deflate them. A job the thread has not started when close wants it is packed by
 * the closing thread itself; without the thread (pthread_create refused)
 * every job is. The thread is woken once a batch of AHEAD_BATCH bytes is
 * queued, and then takes everything queued: waking it for each part cost
 * a futex call and a switch of threads per part (681 on the report deck);
 * at close it is woken for what is left (packer_drain). */

#define AHEAD_BATCH ((size_t)256 << 10)

/* Bytes of parts queued and not started that the renderer lets pile up
 * while the thread lags (the other core busy): past it, the renderer packs
 * the newest job itself, so what is held stays bounded whatever the
 * scheduling (queue_ahead). */
#define AHEAD_MAX ((size_t)4 << 20)

typedef enum { JOB_QUEUED, JOB_RUNNING, JOB_DONE } job_state;

typedef struct ahead_job {
    unsigned char *data; /* the part's bytes, owned by the job; freed once packed */
    size_t len;
    job_state state;
    unsigned char *packed; /* the raw deflate stream; NULL: failed (packed again at close) */
    size_t packed_len;
    uint32_t crc;
} ahead_job;

typedef struct packer {
    pthread_t thread;
    bool running, stop;
    bool idle, drain; /* idle: waiting on wake; drain: close wants every job */
    size_t pending;   /* bytes of the jobs not taken yet */
    size_t waiting;   /* bytes of the jobs still JOB_QUEUED */
    pthread_mutex_t lock;
    pthread_cond_t wake, done; /* wake: a job or stop for the thread; done: a job finished */
    ahead_job **jobs;
    size_t njobs, capjobs, next;      /* next: the first job not yet taken */
    struct libdeflate_compressor *z;  /* the thread's own */
    struct libdeflate_compressor *zr; /* the renderer's, when the thread lags */
} packer;

/* Marks j started (the lock held). */
static void start_job(packer *k, ahead_job *j)
{
    j->state = JOB_RUNNING;
    k->waiting -= j->len;
}

/* Entries held in memory (nearly all of them) are deflated by libdeflate
 * at its fastest level (packed_src); spilled and file-backed parts by
 * libzip's zlib at FO_PKG_XML_LEVEL. On the 50-section report deck (681
 * entries, 6.7 MB of XML) libdeflate level 1 cost 142 M instructions where
 * zlib level 3 cost 285 M, for an archive 2% larger (770 KB, still a
 * twelfth of pptxgenjs's); libdeflate's levels 2-4 cost as much as zlib. */
#ifndef FO_PKG_LIBDEFLATE_LEVEL
#define FO_PKG_LIBDEFLATE_LEVEL 1
#endif

/* Deflates j's bytes with z into a buffer of their packed size, then frees
 * the bytes: only the packed copy is written, so holding both until close
 * only raised the peak (28.7 MiB on the report deck, all 6.7 MB of its XML
 * held twice over with the writers' spare room). packed NULL when out of
 * memory: the bytes are kept and packed at close, which reports it. */
static void run_job(struct libdeflate_compressor *z, ahead_job *j)
{
    size_t cap = z ? libdeflate_deflate_compress_bound(z, j->len) : 0;
    unsigned char *out = z ? fo_malloc(cap) : NULL;
    size_t n = out ? libdeflate_deflate_compress(z, j->data, j->len, out, cap) : 0;
    if (!n) {
        fo_free(out);
        return;
    }
    unsigned char *fit = fo_realloc(out, n);
    j->packed = fit ? fit : out;
    j->packed_len = n;
    j->crc = libdeflate_crc32(0, j->data, j->len);
    fo_free(j->data);
    j->data = NULL;
}

static void *packer_main(void *arg)
{
    packer *k = arg;
    pthread_mutex_lock(&k->lock);
    for (;;) {
        /* asleep until a batch is queued, or close wants what there is */
        while (!k->stop && k->pending < AHEAD_BATCH && !(k->drain && k->next < k->njobs)) {
            k->idle = true;
            pthread_cond_wait(&k->wake, &k->lock);
            k->idle = false;
        }
        if (k->stop) break;
        while (k->next < k->njobs) { /* then everything queued */
            ahead_job *j = k->jobs[k->next++];
            k->pending -= j->len;
            if (j->state != JOB_QUEUED) continue; /* the closing thread took it */
            start_job(k, j);
            pthread_mutex_unlock(&k->lock);
            if (!k->z) k->z = libdeflate_alloc_compressor(FO_PKG_LIBDEFLATE_LEVEL);
            run_job(k->z, j);
            pthread_mutex_lock(&k->lock);
            j->state = JOB_DONE;
            pthread_cond_broadcast(&k->done);
        }
    }
    pthread_mutex_unlock(&k->lock);
    return NULL;
}

/* Stops the thread after the jobs it has (the closing thread takes the
 * rest first, so at close there are none left) and waits for it. */
static void packer_stop(packer *k)
{
    if (!k || !k->running) return;
    pthread_mutex_lock(&k->lock);
    k->stop = true;
    k->next = k->njobs; /* fo_pkg_free without close: drop what is queued */
    k->pending = 0;
    pthread_cond_signal(&k->wake);
    pthread_mutex_unlock(&k->lock);
    pthread_join(k->thread, NULL);
    k->running = false;
}

static void packer_free(packer *k)
{
    if (!k) return;
    packer_stop(k);
    for (size_t i = 0; i < k->njobs; i++) {
        fo_free(k->jobs[i]->data);
        fo_free(k->jobs[i]->packed);
        fo_free(k->jobs[i]);
    }
    fo_free(k->jobs);
    libdeflate_free_compressor(k->z);
    libdeflate_free_compressor(k->zr);
    pthread_cond_destroy(&k->wake);
    pthread_cond_destroy(&k->done);
    pthread_mutex_destroy(&k->lock);
    fo_free(k);
}

static void compression(const char *name, bool store, zip_int32_t *method, zip_uint32_t *level);

/* Is name deflated (not stored), and so deflated ahead when the package does so? */
static bool ahead_kind(const char *name)
{
    zip_int32_t method;
    zip_uint32_t level;
    compression(name, false, &method, &level);
    return method == ZIP_CM_DEFLATE;
}

/* Queues part pt (its pt->len bytes at pt->data, held in memory) for the
 * thread, which takes the bytes (pt->data NULL after). Best effort: out of
 * memory, the part is simply packed at close. */
static void queue_ahead(fo_pkg *p, part *pt)
{
    packer *k = p->packer;
    if (!k || !pt->data || !ahead_kind(pt->name)) return;
    ahead_job *j = fo_calloc(1, sizeof *j);
    if (!j) return;
    j->data = pt->data;
    j->len = pt->len;
    size_t len = pt->len;
    pthread_mutex_lock(&k->lock);
    if (!fo_grow((void **)&k->jobs, &k->capjobs, k->njobs + 1, 64, sizeof *k->jobs)) {
        pthread_mutex_unlock(&k->lock);
        fo_free(j);
        return;
    }
    k->jobs[k->njobs++] = j;
    pt->ahead = j;
    pt->data = NULL;
    k->pending += len;
    k->waiting += len;
    if (k->idle && k->pending >= AHEAD_BATCH) pthread_cond_signal(&k->wake);
    /* the thread lags: pack the newest jobs here (the thread takes the
       oldest), until what waits is under AHEAD_MAX again */
    for (size_t i = k->njobs; k->waiting > AHEAD_MAX && i > k->next; i--) {
        ahead_job *w = k->jobs[i - 1];
        if (w->state != JOB_QUEUED) continue;
        start_job(k, w);
        pthread_mutex_unlock(&k->lock);
        if (!k->zr) k->zr = libdeflate_alloc_compressor(FO_PKG_LIBDEFLATE_LEVEL);
        run_job(k->zr, w);
        pthread_mutex_lock(&k->lock);
        w->state = JOB_DONE;
        pthread_cond_broadcast(&k->done);
    }
    pthread_mutex_unlock(&k->lock);
}

/* Close is starting: the thread takes what is queued, batch or not, from
 * the front, while the closing thread packs from the back with z until they
 * meet; then close writes the entries in order, waiting at most for the
 * job the thread is finishing. (Both taking from the front made the
 * closing thread wait on nearly every other entry.) */
static void packer_drain(packer *k, struct libdeflate_compressor *z)
{
    if (!k) return;
    pthread_mutex_lock(&k->lock);
    k->drain = true;
    if (k->idle) pthread_cond_signal(&k->wake);
    for (size_t i = k->njobs; z && i > k->next; i--) {
        ahead_job *j = k->jobs[i - 1];
        if (j->state != JOB_QUEUED) continue;
        start_job(k, j);
        pthread_mutex_unlock(&k->lock);
        run_job(z, j);
        pthread_mutex_lock(&k->lock);
        j->state = JOB_DONE;
    }
    pthread_mutex_unlock(&k->lock);
}

/* The packed bytes of j, waiting for the thread or packing them here with
 * z; the caller takes *packed (NULL: not packed, do it the usual way from
 * *data, which the job keeps). */
static void take_ahead(packer *k, ahead_job *j, struct libdeflate_compressor *z, unsigned char **packed,
                       size_t *packed_len, uint32_t *crc, const unsigned char **data)
{
    pthread_mutex_lock(&k->lock);
    if (j->state == JOB_QUEUED) {
        start_job(k, j); /* the thread skips it */
        pthread_mutex_unlock(&k->lock);
        run_job(z, j);
        pthread_mutex_lock(&k->lock);
        j->state = JOB_DONE;
    }
    while (j->state != JOB_DONE) pthread_cond_wait(&k->done, &k->lock);
    *packed = j->packed;
    *packed_len = j->packed_len;
    *crc = j->crc;
    *data = j->data;
    j->packed = NULL;
    pthread_mutex_unlock(&k->lock);
}

void fo_pkg_deflate_ahead(fo_pkg *p)
{
    if (!p || p->packer) return;
    packer *k = fo_calloc(1, sizeof *k);
    if (!k) return;
    pthread_mutex_init(&k->lock, NULL);
    pthread_cond_init(&k->wake, NULL);
    pthread_cond_init(&k->done, NULL);
    k->running = fo_thread_start(&k->thread, packer_main, k) == 0;
    p->packer = k;
}

/* ---- the index ---------------------------------------------------------------- */

static size_t hash(const char *s)
{
    size_t h = 1469598103934665603u; /* FNV-1a */
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211u;
    return h;
}

/* The slot of key: where it is, or the empty one where it would go. */
static size_t slot_of(const strmap *m, const char *key)
{
    size_t i = hash(key) & (m->cap - 1);
    while (m->keys[i] && strcmp(m->keys[i], key) != 0) i = (i + 1) & (m->cap - 1);
    return i;
}

static bool strmap_get(const strmap *m, const char *key, size_t *val)
{
    if (!m->cap) return false;
    size_t i = slot_of(m, key);
    if (!m->keys[i]) return false;
    *val = m->vals[i];
    return true;
}

/* Adds key (borrowed: it must outlive the map) -> val; key is not present. */
static bool strmap_put(strmap *m, const char *key, size_t val)
{
    if (2 * (m->n + 1) > m->cap) { /* keep the load under a half */
        strmap big = {fo_calloc(m->cap ? 2 * m->cap : 64, sizeof *big.keys), NULL, m->cap ? 2 * m->cap : 64,
                      m->n};
        big.vals = fo_calloc(big.cap, sizeof *big.vals);
        if (!big.keys || !big.vals) {
            fo_free(big.keys);
            fo_free(big.vals);
            return false;
        }
        for (size_t i = 0; i < m->cap; i++)
            if (m->keys[i]) {
                size_t j = slot_of(&big, m->keys[i]);
                big.keys[j] = m->keys[i];
                big.vals[j] = m->vals[i];
            }
        fo_free(m->keys);
        fo_free(m->vals);
        *m = big;
    }
    size_t i = slot_of(m, key);
    m->keys[i] = key;
    m->vals[i] = val;
    m->n++;
    return true;
}

static void strmap_free(strmap *m)
{
    fo_free(m->keys);
    fo_free(m->vals);
    memset(m, 0, sizeof *m);
}

void fo_pkg__fail(fo_pkg *p, fo_status err, const char *why)
{
    if (!p || p->err != FO_OK) return;
    p->err = err;
    snprintf(p->why, sizeof p->why, "%s", why ? why : fo_strerror(err));
}

fo_pkg *fo_pkg_new(const char *path)
{
    fo_pkg *p = fo_calloc(1, sizeof *p);
    if (!p) return NULL;
    p->path = fo_strdup(path);
    if (!p->path) {
        fo_free(p);
        return NULL;
    }
    p->held_limit = FO_PKG_HELD_BYTES;
    fo_pkg_add_default(p, "rels", FO_CT_RELS);
    fo_pkg_add_default(p, "xml", "application/xml");
    return p;
}

void fo_pkg_free(fo_pkg *p)
{
    if (!p) return;
    packer_free(p->packer); /* first: its thread reads the parts' bytes */
    for (size_t i = 0; i < p->nparts; i++) {
        fo_free(p->parts[i].name);
        fo_free(p->parts[i].ct);
        fo_free(p->parts[i].data);
        fo_xml_free(p->parts[i].xml);
    }
    for (size_t i = 0; i < p->nrels; i++) {
        fo_free(p->rels[i].source);
        fo_free(p->rels[i].id);
        fo_free(p->rels[i].type);
        fo_free(p->rels[i].target);
    }
    for (size_t i = 0; i < p->ndefs; i++) {
        fo_free(p->defs[i].ext);
        fo_free(p->defs[i].ct);
    }
    for (size_t i = 0; i < p->ngen; i++) {
        fo_free(p->gen[i].name);
        fo_free(p->gen[i].data);
    }
    strmap_free(&p->partmap);
    strmap_free(&p->srcmap);
    fo_free(p->srcs);
    fo_free(p->parts);
    fo_free(p->rels);
    fo_free(p->defs);
    fo_free(p->gen);
    fo_free(p->path);
    if (p->spill) fclose(p->spill);
    fo_free(p);
}

void fo_pkg__set_held_limit(fo_pkg *p, size_t bytes)
{
    if (p) p->held_limit = bytes;
}

void fo_pkg__via_libzip(fo_pkg *p)
{
    if (p) p->via_libzip = true;
}

fo_status fo_pkg_status(const fo_pkg *p) { return p ? p->err : FO_ERR_NOMEM; }

void fo_pkg_add_default(fo_pkg *p, const char *ext, const char *ct)
{
    if (!p || p->err) return;
    for (size_t i = 0; i < p->ndefs; i++)
        if (strcmp(p->defs[i].ext, ext) == 0) return;
    if (!fo_grow((void **)&p->defs, &p->capdefs, p->ndefs + 1, 16, sizeof *p->defs)) {
        fo_pkg__fail(p, FO_ERR_NOMEM, NULL);
        return;
    }
    deflt *d = &p->defs[p->ndefs];
    d->ext = fo_strdup(ext);
    d->ct = fo_strdup(ct);
    if (!d->ext || !d->ct) {
        fo_free(d->ext);
        fo_free(d->ct);
        fo_pkg__fail(p, FO_ERR_NOMEM, NULL);
        return;
    }
    p->ndefs++;
}

bool fo_pkg_has_part(const fo_pkg *p, const char *name)
{
    size_t i;
    return p && strmap_get(&p->partmap, name, &i);
}

/* Appends an empty part record named name; NULL after an error. */
static part *new_part(fo_pkg *p, const char *name, const char *ct)
{
    if (p->err) return NULL;
    if (fo_pkg_has_part(p, name)) {
        char why[160];
        snprintf(why, sizeof why, "part %.100s added twice", name);
        fo_pkg__fail(p, FO_ERR_INTERNAL, why);
        return NULL;
    }
    if (!fo_grow((void **)&p->parts, &p->capparts, p->nparts + 1, 16, sizeof *p->parts)) {
        fo_pkg__fail(p, FO_ERR_NOMEM, NULL);
        return NULL;
    }
    part *pt = &p->parts[p->nparts];
    memset(pt, 0, sizeof *pt);
    pt->name = fo_strdup(name);
    pt->ct = ct ? fo_strdup(ct) : NULL;
    if (!pt->name || (ct && !pt->ct) || !strmap_put(&p->partmap, pt->name, p->nparts)) {
        fo_free(pt->name);
        fo_free(pt->ct);
        fo_pkg__fail(p, FO_ERR_NOMEM, NULL);
        return NULL;
    }
    p->nparts++;
    return pt;
}

/* Keeps len bytes at data in memory (true), or, past the limit, appends
 * them to the spill file and marks pt spilled (false: the caller frees its
 * copy). A spill file that cannot be written fails the package. */
static bool hold(fo_pkg *p, part *pt, const void *data, size_t len)
{
    if (len <= p->held_limit && p->held <= p->held_limit - len) {
        p->held += len;
        return true;
    }
    if (!p->spill && !(p->spill = tmpfile())) {
        fo_pkg__fail(p, FO_ERR_IO, "cannot create a temporary file for the package's parts");
        return false;
    }
    if (len && fwrite(data, 1, len, p->spill) != len) {
        fo_pkg__fail(p, FO_ERR_IO, "cannot write the package's temporary file (disk full?)");
        return false;
    }
    pt->spilled = true;
    pt->off = p->spill_len;
    pt->len = len;
    p->spill_len += len;
    return false;
}

void fo_pkg_add_part(fo_pkg *p, const char *name, const char *ct, const void *data, size_t len)
{
    if (!p) return;
    unsigned char *copy = fo_malloc(len ? len : 1);
    if (!copy) {
        fo_pkg__fail(p, FO_ERR_NOMEM, NULL);
        return;
    }
    if (len) memcpy(copy, data, len);
    part *pt = new_part(p, name, ct);
    if (!pt) {
        fo_free(copy);
        return;
    }
    if (!hold(p, pt, copy, len)) {
        fo_free(copy);
        return;
    }
    pt->data = copy;
    pt->len = len;
    queue_ahead(p, pt);
}

void fo_pkg_add_part_take(fo_pkg *p, const char *name, const char *ct, void *data, size_t len)
{
    if (!p) {
        fo_free(data);
        return;
    }
    part *pt = new_part(p, name, ct);
    if (!pt) {
        fo_free(data);
        return;
    }
    if (!hold(p, pt, data, len)) {
        fo_free(data);
        return;
    }
    pt->data = data;
    pt->len = len;
    queue_ahead(p, pt);
}

void fo_pkg_add_xml(fo_pkg *p, const char *name, const char *ct, fo_xml *x)
{
    if (!p) {
        fo_xml_free(x);
        return;
    }
    if (!x) {
        fo_pkg__fail(p, FO_ERR_NOMEM, NULL);
        return;
    }
    fo_xml_finish(x);
    if (fo_xml_status(x) != FO_OK) {
        char why[160];
        snprintf(why, sizeof why, "writing part %.100s failed", name);
        fo_pkg__fail(p, fo_xml_status(x), why);
        fo_xml_free(x);
        return;
    }
    part *pt = new_part(p, name, ct);
    if (!pt) {
        fo_xml_free(x);
        return;
    }
    size_t len;
    const char *mem = fo_xml_memory(x, &len); /* NULL: file-backed */
    if (mem && !hold(p, pt, mem, len)) {
        fo_xml_free(x);
        return;
    }
    if (!mem) { /* file-backed: streamed at close */
        pt->xml = x;
        return;
    }
    pt->data = fo_xml__take_memory(x, &pt->len); /* the writer's spare state goes now */
    fo_xml_free(x);
    if (!pt->data) fo_pkg__fail(p, FO_ERR_NOMEM, NULL);
    queue_ahead(p, pt);
}

/* Appends v XML-escaped and sanitized. */
static void buf_put_escaped(fo_buf *b, const char *v)
{
    size_t n = strlen(v);
    char *clean = fo_malloc(3 * n + 1);
    if (!clean) {
        b->failed = true;
        return;
    }
    fo_xml_sanitize(v, n, clean);
    for (const char *c = clean; *c; c++) {
        switch (*c) {
        case '&': fo_buf_append(b, "&amp;", 5); break;
        case '<': fo_buf_append(b, "&lt;", 4); break;
        case '>': fo_buf_append(b, "&gt;", 4); break;
        case '"': fo_buf_append(b, "&quot;", 6); break;
        default: fo_buf_append(b, c, 1); break;
        }
    }
    fo_free(clean);
}

char *fo_template_expand(const char *template_name, const char *const *subst, size_t *out_len)
{
    size_t tlen;
    const char *t = (const char *)fo_template_find(template_name, &tlen);
    if (!t) return NULL;
    fo_buf b = {0};
    const char *s = t, *end = t + tlen;
    while (!b.failed && s < end) {
        const char *open = strstr(s, "{{");
        const char *close = open ? strstr(open + 2, "}}") : NULL;
        if (!open || !close) {
            fo_buf_append(&b, s, (size_t)(end - s));
            break;
        }
        fo_buf_append(&b, s, (size_t)(open - s));
        const char *key = open + 2;
        size_t klen = (size_t)(close - key);
        const char *value = NULL;
        for (size_t i = 0; subst && subst[i] && subst[i + 1]; i += 2)
            if (strlen(subst[i]) == klen && memcmp(subst[i], key, klen) == 0) value = subst[i + 1];
        if (value) buf_put_escaped(&b, value);
        else fo_buf_append(&b, open, (size_t)(close + 2 - open)); /* unknown: kept */
        s = close + 2;
    }
    return fo_buf_take(&b, out_len);
}

void fo_pkg_add_template(fo_pkg *p, const char *name, const char *ct, const char *template_name,
                         const char *const *subst)
{
    if (!p || p->err) return;
    size_t tlen;
    if (!fo_template_find(template_name, &tlen)) {
        char why[160];
        snprintf(why, sizeof why, "template %.100s is not built in", template_name);
        fo_pkg__fail(p, FO_ERR_INTERNAL, why);
        return;
    }
    size_t len = 0;
    char *b = fo_template_expand(template_name, subst, &len);
    if (!b) {
        fo_pkg__fail(p, FO_ERR_NOMEM, NULL);
        return;
    }
    part *pt = new_part(p, name, ct);
    if (!pt) {
        fo_free(b);
        return;
    }
    pt->data = (unsigned char *)b;
    pt->len = len;
    queue_ahead(p, pt);
}

const char *fo_pkg_add_rel(fo_pkg *p, const char *source, const char *type, const char *target, bool external)
{
    return fo_pkg_add_rel_id(p, source, NULL, type, target, external);
}

const char *fo_pkg_add_rel_id(fo_pkg *p, const char *source, const char *given_id, const char *type,
                              const char *target, bool external)
{
    if (!p || p->err) return "";
    if (!source) source = "";
    size_t si = NONE;
    bool known = strmap_get(&p->srcmap, source, &si);
    if (!fo_grow((void **)&p->rels, &p->caprels, p->nrels + 1, 16, sizeof *p->rels) ||
        (!known && !fo_grow((void **)&p->srcs, &p->capsrcs, p->nsrcs + 1, 16, sizeof *p->srcs))) {
        fo_pkg__fail(p, FO_ERR_NOMEM, NULL);
        return "";
    }
    char id[64];
    if (given_id) snprintf(id, sizeof id, "%s", given_id);
    else snprintf(id, sizeof id, "rId%zu", (known ? p->srcs[si].count : 0) + 1);
    rel *r = &p->rels[p->nrels];
    r->source = fo_strdup(source);
    r->id = fo_strdup(id);
    r->type = fo_strdup(type);
    r->target = fo_strdup(target);
    r->external = external;
    r->next = NONE;
    if (!r->source || !r->id || !r->type || !r->target ||
        (!known && !strmap_put(&p->srcmap, r->source, p->nsrcs))) {
        fo_free(r->source);
        fo_free(r->id);
        fo_free(r->type);
        fo_free(r->target);
        fo_pkg__fail(p, FO_ERR_NOMEM, NULL);
        return "";
    }
    if (!known) {
        si = p->nsrcs++;
        p->srcs[si] = (relsrc){p->nrels, p->nrels, 0};
    } else {
        p->rels[p->srcs[si].last].next = p->nrels;
        p->srcs[si].last = p->nrels;
    }
    p->srcs[si].count++;
    p->nrels++;
    return r->id;
}

/* ---- generated parts -------------------------------------------------------- */

static fo_xml *gen_content_types(const fo_pkg *p)
{
    fo_xml *x = fo_xml_new_memory();
    fo_xml_open(x, "Types", "xmlns", "http://schemas.openxmlformats.org/package/2006/content-types", NULL);
    for (size_t i = 0; i < p->ndefs; i++)
        fo_xml_leaf(x, "Default", "Extension", p->defs[i].ext, "ContentType", p->defs[i].ct, NULL);
    char pn[1100];
    for (size_t i = 0; i < p->nparts; i++) {
        if (!p->parts[i].ct) continue;
        snprintf(pn, sizeof pn, "/%s", p->parts[i].name);
        fo_xml_leaf(x, "Override", "PartName", pn, "ContentType", p->parts[i].ct, NULL);
    }
    fo_xml_close(x);
    return x;
}

/* Relationships of source (NULL when it has none). */
static fo_xml *gen_rels(const fo_pkg *p, const char *src)
{
    fo_xml *x = NULL;
    size_t si;
    if (!strmap_get(&p->srcmap, src, &si)) return NULL;
    for (size_t i = p->srcs[si].first; i != NONE; i = p->rels[i].next) {
        const rel *r = &p->rels[i];
        if (!x) {
            x = fo_xml_new_memory();
            fo_xml_open(x, "Relationships", "xmlns",
                        "http://schemas.openxmlformats.org/package/2006/relationships", NULL);
        }
        fo_xml_leaf(x, "Relationship", "Id", r->id, "Type", r->type, "Target", r->target, "TargetMode",
                    r->external ? "External" : NULL, NULL);
    }
    fo_xml_close(x);
    return x;
}

/* "word/document.xml" -> "word/_rels/document.xml.rels"; "" -> "_rels/.rels". */
static void rels_name(const char *source, char *out, size_t cap)
{
    const char *slash = strrchr(source, '/');
    if (!slash) snprintf(out, cap, "_rels/%s.rels", source);
    else snprintf(out, cap, "%.*s/_rels/%s.rels", (int)(slash - source), source, slash + 1);
}

/* ---- package-level parts: core and app properties, theme -------------------
 * Timestamps come from doc->epoch only, never the clock. */

/* W3CDTF in UTC: "2026-09-30T00:00:00Z". */
static void w3cdtf(int64_t epoch, char out[32])
{
    time_t t = (time_t)epoch;
    struct tm tm;
    if (!gmtime_r(&t, &tm)) {
        snprintf(out, 32, "2000-01-01T00:00:00Z");
        return;
    }
    strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void fo_pkg_add_core_props(fo_pkg *p, const fo_doc *doc)
{
    if (fo_pkg_status(p) != FO_OK) return;
    char when[32];
    w3cdtf(doc->epoch, when);
    fo_xml *x = fo_xml_new_memory();
    fo_xml_open(x, "cp:coreProperties", "xmlns:cp",
                "http://schemas.openxmlformats.org/package/2006/metadata/core-properties", "xmlns:dc",
                "http://purl.org/dc/elements/1.1/", "xmlns:dcterms", "http://purl.org/dc/terms/",
                "xmlns:dcmitype", "http://purl.org/dc/dcmitype/", "xmlns:xsi",
                "http://www.w3.org/2001/XMLSchema-instance", NULL);
    if (doc->title) fo_xml_text_elem(x, "dc:title", doc->title);
    if (doc->subtitle) fo_xml_text_elem(x, "dc:subject", doc->subtitle);
    if (doc->author) {
        fo_xml_text_elem(x, "dc:creator", doc->author);
        fo_xml_text_elem(x, "cp:lastModifiedBy", doc->author);
    }
    if (doc->epoch != FO_NO_EPOCH) { /* no date given: none made up */
        fo_xml_open(x, "dcterms:created", "xsi:type", "dcterms:W3CDTF", NULL);
        fo_xml_text(x, when);
        fo_xml_close(x);
        fo_xml_open(x, "dcterms:modified", "xsi:type", "dcterms:W3CDTF", NULL);
        fo_xml_text(x, when);
        fo_xml_close(x);
    }
    fo_xml_close(x);
    fo_pkg_add_xml(p, "docProps/core.xml", FO_CT_CORE_PROPS, x);
    fo_pkg_add_rel(p, "", FO_REL_CORE_PROPS, "docProps/core.xml", false);
}

void fo_pkg_add_app_props(fo_pkg *p, const char *extra_xml)
{
    if (fo_pkg_status(p) != FO_OK) return;
    fo_xml *x = fo_xml_new_memory();
    fo_xml_open(x, "Properties", "xmlns",
                "http://schemas.openxmlformats.org/officeDocument/2006/extended-properties", "xmlns:vt",
                "http://schemas.openxmlformats.org/officeDocument/2006/docPropsVTypes", NULL);
    fo_xml_text_elem(x, "Application", "folio");
    fo_xml_text_elem(x, "DocSecurity", "0");
    if (extra_xml) fo_xml_raw(x, extra_xml, strlen(extra_xml));
    fo_xml_close(x);
    fo_pkg_add_xml(p, "docProps/app.xml", FO_CT_APP_PROPS, x);
    fo_pkg_add_rel(p, "", FO_REL_APP_PROPS, "docProps/app.xml", false);
}

void fo_pkg_add_custom_props(fo_pkg *p, const fo_doc *doc, const fo_render_opts *opts)
{
    if (fo_pkg_status(p) != FO_OK) return;
    fo_prov_item items[FO_PROV_MAX];
    size_t n = fo_prov_collect(doc, opts, items);
    fo_xml *x = fo_xml_new_memory();
    fo_xml_open(x, "Properties", "xmlns",
                "http://schemas.openxmlformats.org/officeDocument/2006/custom-properties", "xmlns:vt",
                "http://schemas.openxmlformats.org/officeDocument/2006/docPropsVTypes", NULL);
    for (size_t k = 0; k < n; k++) {
        /* pid 0 and 1 are reserved; every custom property shares this fmtid */
        fo_xml_open(x, "property", "fmtid", "{D5CDD505-2E9C-101B-9397-08002B2CF9AE}", NULL);
        fo_xml_attr_int(x, "pid", (long long)k + 2);
        fo_xml_attr(x, "name", items[k].name);
        fo_xml_text_elem(x, "vt:lpwstr", items[k].value);
        fo_xml_close(x);
    }
    fo_xml_close(x);
    fo_pkg_add_xml(p, "docProps/custom.xml", FO_CT_CUSTOM_PROPS, x);
    fo_pkg_add_rel(p, "", FO_REL_CUSTOM_PROPS, "docProps/custom.xml", false);
}

/* The expanded theme b (*len bytes) with sup inserted before each
 * </a:majorFont> and </a:minorFont>; takes b, returns a fo_malloc'd copy
 * (NULL when out of memory). */
static char *with_supplemental(char *b, size_t *len, const char *sup)
{
    fo_buf o = {0};
    const char *s = b;
    for (const char *e; (e = strstr(s, "</a:m")) != NULL; s = e + 5) {
        fo_buf_append(&o, s, (size_t)(e - s));
        fo_buf_puts(&o, sup);
        fo_buf_puts(&o, "</a:m");
    }
    fo_buf_puts(&o, s);
    fo_free(b);
    return fo_buf_take(&o, len);
}

void fo_pkg_add_theme(fo_pkg *p, const char *name, const fo_theme *t, const char *lang)
{
    if (!p || p->err) return;
    char dk1[7], dk2[7], lt1[7], acc[6][7], hl[7];
    fo_rgb_hex(t->text, dk1);
    fo_rgb_hex(t->heading_color, dk2);
    fo_rgb_hex(t->background, lt1);
    fo_rgb_hex(t->link, hl);
    for (size_t i = 0; i < 6; i++) {
        fo_rgb c = i < t->npalette ? t->palette[i] : t->accent;
        fo_rgb_hex(c, acc[i]);
    }
    const char *subst[] = {"NAME",       t->name[0] ? t->name : "folio",
                           "DK1",        dk1,
                           "LT1",        lt1,
                           "DK2",        dk2,
                           "ACCENT1",    acc[0],
                           "ACCENT2",    acc[1],
                           "ACCENT3",    acc[2],
                           "ACCENT4",    acc[3],
                           "ACCENT5",    acc[4],
                           "ACCENT6",    acc[5],
                           "HLINK",      hl,
                           "MAJOR_FONT", t->heading.family,
                           "MINOR_FONT", t->body.family,
                           NULL};
    size_t len = 0;
    char *b = fo_template_expand("ooxml/theme1.xml", subst, &len);
    fo_lang_ooxml l = fo_lang_for_ooxml(lang);
    if (b && l.ea_script) {
        /* the East Asian font for the document's script, as Office's own
           themes list theirs (ECMA-376 Part 1, 20.1.4.1.25); the names are
           folio's own (words.c), nothing to escape */
        char sup[160];
        snprintf(sup, sizeof sup, "<a:font script=\"%s\" typeface=\"%s\"/>", l.ea_script, l.ea_font);
        b = with_supplemental(b, &len, sup);
    }
    if (!b) {
        fo_pkg__fail(p, FO_ERR_NOMEM, NULL);
        return;
    }
    fo_pkg_add_part_take(p, name, FO_CT_THEME, b, len);
}

/* ---- writing the archive ------------------------------------------------------ */

typedef struct {
    zip_t *za;
    time_t stamp;
    fo_pkg *p;
    bool store;                      /* every entry stored: fo_pkg_close_memory */
    struct libdeflate_compressor *z; /* packed_src's, made at the first entry */
} writer;

static void zip_fail(writer *w, const char *what, const char *name)
{
    char why[160]; /* what: at most "cannot set attributes of" */
    snprintf(why, sizeof why, "%.24s %.70s: %.60s", what, name, zip_strerror(w->za));
    fo_pkg__fail(w->p, FO_ERR_IO, why);
}

/* zlib's level for the parts libzip deflates itself: level 3 measured 23%
 * less CPU than level 6 on the report deck (0.10 s vs 0.13 s) for files 9%
 * larger. */
#ifndef FO_PKG_XML_LEVEL
#define FO_PKG_XML_LEVEL 3
#endif

/* How an entry is compressed, from measurements on the 50-chart report:
 * a PNG from folio's fast encoder still shrinks to ~77% at deflate level 1
 * (about 20 ms CPU per MB), so PNGs are deflated at the fastest level; a
 * JPEG gains nothing from deflate and is stored. Everything else (XML) is
 * deflated at FO_PKG_XML_LEVEL. */
static void compression(const char *name, bool store, zip_int32_t *method, zip_uint32_t *level)
{
    const char *dot = strrchr(name, '.');
    *method = ZIP_CM_DEFLATE;
    *level = FO_PKG_XML_LEVEL;
    if (store) {
        *method = ZIP_CM_STORE;
        *level = 0;
        return;
    }
    if (!dot) return;
    if (strcmp(dot, ".png") == 0 || strcmp(dot, ".gif") == 0) *level = 1;
    else if (strcmp(dot, ".jpeg") == 0 || strcmp(dot, ".jpg") == 0) {
        *method = ZIP_CM_STORE;
        *level = 0;
    }
}

/* Adds one entry from src (NULL: failed to make one). */
static void add_source(writer *w, const char *name, zip_source_t *src)
{
    if (!src) {
        zip_fail(w, "cannot add", name);
        return;
    }
    zip_int64_t idx = zip_file_add(w->za, name, src, ZIP_FL_ENC_UTF_8);
    if (idx < 0) {
        zip_source_free(src);
        zip_fail(w, "cannot add", name);
        return;
    }
    zip_uint64_t i = (zip_uint64_t)idx;
    zip_int32_t method;
    zip_uint32_t level;
    compression(name, w->store, &method, &level);
    if (zip_set_file_compression(w->za, i, method, level) < 0 ||
        zip_file_set_mtime(w->za, i, w->stamp, 0) < 0 ||
        zip_file_set_external_attributes(w->za, i, 0, ZIP_OPSYS_UNIX, 0100644u << 16) < 0)
        zip_fail(w, "cannot set attributes of", name);
}

/* Reads n bytes at off of the spill file fd into buf: 0, or an errno. */
/* A libzip source serving an entry held in memory or spilled, already
 * deflated (raw deflate, by libdeflate) with its CRC: its stat says ZIP_CM_DEFLATE, so
 * zip_close copies the bytes instead of running zlib over them. Why: on
 * the 50-section report deck (681 entries, 6.7 MB of XML) zlib cost 285 M
 * instructions of 971 M, a third of them clearing its tables afresh for
 * each entry (deflateReset); libdeflate compresses a whole buffer at once.
 * The entry is deflated when libzip first asks for its size or bytes, and
 * the deflated copy dropped when libzip closes the source, so only one is
 * held at a time. A spilled part is read back for that moment, so an
 * archive is the same whichever parts were spilled. */
typedef struct {
    writer *w;
    const unsigned char *data; /* borrowed: the part's bytes, unless spilled */
    bool spilled;              /* the bytes are at off of the spill file */
    uint64_t off;
    size_t len;
    unsigned char *packed; /* NULL until deflated, and after CLOSE */
    size_t packed_len;
    uint32_t crc;
    bool sized; /* packed_len and crc are known */
    size_t pos;
    zip_error_t err;
} packed_src;

/* Deflates the source's bytes; false (and the package failed with
 * FO_ERR_NOMEM, which zip_close's own error then does not replace) when
 * out of memory. */
static bool pack(packed_src *s)
{
    writer *w = s->w;
    if (!w->z) w->z = libdeflate_alloc_compressor(FO_PKG_LIBDEFLATE_LEVEL);
    size_t cap = w->z ? libdeflate_deflate_compress_bound(w->z, s->len) : 0;
    s->packed = w->z ? fo_malloc(cap) : NULL;
    const unsigned char *data = s->data;
    unsigned char *back = NULL; /* a spilled part read back */
    if (s->spilled && s->packed && (back = fo_malloc(s->len ? s->len : 1))) {
        int e = fo_zip_pread(fileno(w->p->spill), back, s->len, s->off);
        if (e) {
            fo_free(back);
            fo_free(s->packed);
            s->packed = NULL;
            fo_pkg__fail(w->p, FO_ERR_IO, "cannot read the package's temporary file back");
            return false;
        }
    }
    if (s->spilled) data = back;
    if (s->packed && data) s->packed_len = libdeflate_deflate_compress(w->z, data, s->len, s->packed, cap);
    if (!s->packed || !data || s->packed_len == 0) {
        fo_free(back);
        fo_free(s->packed);
        s->packed = NULL;
        fo_pkg__fail(w->p, FO_ERR_NOMEM, NULL);
        return false;
    }
    s->crc = libdeflate_crc32(0, data, s->len);
    fo_free(back);
    s->sized = true;
    return true;
}

/* The commands a read-only source leaves to source_other (listed, so that
 * -Wswitch-enum points at a command a new libzip adds). */
static zip_int64_t packed_read(void *ud, void *data, zip_uint64_t n, zip_source_cmd_t cmd)
{
    packed_src *s = ud;
    switch (cmd) {
    case ZIP_SOURCE_OPEN:
        if (!s->packed && !pack(s)) {
            zip_error_set(&s->err, ZIP_ER_MEMORY, 0);
            return -1;
        }
        s->pos = 0;
        return 0;
    case ZIP_SOURCE_READ:
        if (n > s->packed_len - s->pos) n = s->packed_len - s->pos;
        memcpy(data, s->packed + s->pos, n);
        s->pos += n;
        return (zip_int64_t)n;
    case ZIP_SOURCE_CLOSE:
        fo_free(s->packed);
        s->packed = NULL;
        return 0;
    case ZIP_SOURCE_STAT:
        if (!s->sized && !pack(s)) {
            zip_error_set(&s->err, ZIP_ER_MEMORY, 0);
            return -1;
        }
        return fo_zip_stat_deflated(&s->err, data, n, s->len, s->packed_len, s->crc);
    case ZIP_SOURCE_FREE:
        zip_error_fini(&s->err);
        fo_free(s->packed);
        fo_free(s);
        return 0;
    FO_ZIP_SOURCE_OTHER_CASES:
    default: return fo_zip_source_other(&s->err, data, n, cmd);
    }
}

/* The source of an entry held in memory (data) or spilled (at off of the
 * spill file) that compression() deflates;
 * NULL when it is stored (*stored) or on failure (out of memory: the
 * package fails with FO_ERR_NOMEM). */
static zip_source_t *packed_source(writer *w, const char *name, const void *data, bool spilled, uint64_t off,
                                   size_t len, ahead_job *ahead, bool *stored)
{
    zip_int32_t method;
    zip_uint32_t level;
    compression(name, w->store, &method, &level);
    *stored = method == ZIP_CM_STORE;
    if (*stored) return NULL;
    packed_src *s = fo_calloc(1, sizeof *s);
    if (!s) {
        fo_pkg__fail(w->p, FO_ERR_NOMEM, NULL);
        return NULL;
    }
    s->w = w;
    s->data = data;
    s->spilled = spilled;
    s->off = off;
    s->len = len;
    if (ahead) {
        if (!w->z) w->z = libdeflate_alloc_compressor(FO_PKG_LIBDEFLATE_LEVEL);
        take_ahead(w->p->packer, ahead, w->z, &s->packed, &s->packed_len, &s->crc, &s->data);
        s->sized = s->packed != NULL;
    }
    zip_error_init(&s->err);
    zip_source_t *src = zip_source_function(w->za, packed_read, s);
    if (!src) {
        zip_error_fini(&s->err);
        fo_free(s->packed);
        fo_free(s);
    }
    return src;
}

/* Adds one entry from memory or from a FILE (ownership of fp moves to libzip). */
static void add_entry(writer *w, const char *name, const void *data, size_t len, FILE *fp, ahead_job *ahead)
{
    if (w->p->err) {
        if (fp) fclose(fp);
        return;
    }
    bool stored = true;
    zip_source_t *src =
        fp ? zip_source_filep(w->za, fp, 0, -1) : packed_source(w, name, data, false, 0, len, ahead, &stored);
    if (!src && !fp && stored) src = zip_source_buffer(w->za, data, len, 0);
    if (!src && fp) fclose(fp);
    add_source(w, name, src);
}

/* A libzip source reading len bytes at off of the spill file (pread: the
 * sources of all spilled parts share its descriptor). */
typedef struct {
    int fd;
    uint64_t off, len, pos;
    zip_error_t err;
} spill_src;

static zip_int64_t spill_read(void *ud, void *data, zip_uint64_t n, zip_source_cmd_t cmd)
{
    spill_src *s = ud;
    switch (cmd) {
    case ZIP_SOURCE_OPEN: s->pos = 0; return 0;
    case ZIP_SOURCE_READ: {
        if (n > s->len - s->pos) n = s->len - s->pos;
        int e = fo_zip_pread(s->fd, data, n, s->off + s->pos);
        if (e) {
            zip_error_set(&s->err, ZIP_ER_READ, e);
            return -1;
        }
        s->pos += n;
        return (zip_int64_t)n;
    }
    case ZIP_SOURCE_CLOSE: return 0;
    case ZIP_SOURCE_STAT: { /* what a buffer source says, so the entry is written alike */
        if (n < sizeof(zip_stat_t)) {
            zip_error_set(&s->err, ZIP_ER_INVAL, 0);
            return -1;
        }
        zip_stat_t *st = data;
        zip_stat_init(st);
        st->size = st->comp_size = s->len;
        st->comp_method = ZIP_CM_STORE;
        st->encryption_method = ZIP_EM_NONE;
        st->valid = ZIP_STAT_SIZE | ZIP_STAT_COMP_SIZE | ZIP_STAT_COMP_METHOD | ZIP_STAT_ENCRYPTION_METHOD;
        return sizeof *st;
    }
    case ZIP_SOURCE_FREE:
        zip_error_fini(&s->err);
        fo_free(s);
        return 0;
    FO_ZIP_SOURCE_OTHER_CASES:
    default: return fo_zip_source_other(&s->err, data, n, cmd);
    }
}

static zip_source_t *spill_source(writer *w, const part *pt)
{
    spill_src *s = fo_calloc(1, sizeof *s);
    if (!s) return NULL;
    s->fd = fileno(w->p->spill);
    s->off = pt->off;
    s->len = pt->len;
    zip_error_init(&s->err);
    zip_source_t *src = zip_source_function(w->za, spill_read, s);
    if (!src) {
        zip_error_fini(&s->err);
        fo_free(s);
    }
    return src;
}

/* Keeps x's finished bytes as generated part name, queued to be deflated
 * ahead like any other part (x NULL: nothing to add; the writer is freed). */
static void add_generated(fo_pkg *p, const char *name, fo_xml *x)
{
    if (!x || p->err) {
        fo_xml_free(x);
        return;
    }
    fo_xml_finish(x);
    size_t len = 0;
    unsigned char *data = fo_xml__take_memory(x, &len);
    fo_status st = fo_xml_status(x);
    fo_xml_free(x);
    char *copy = data ? fo_strdup(name) : NULL;
    if (!copy || !fo_grow((void **)&p->gen, &p->capgen, p->ngen + 1, 16, sizeof *p->gen)) {
        fo_free(data);
        fo_free(copy);
        fo_pkg__fail(p, st != FO_OK ? st : FO_ERR_NOMEM, "writing a package part");
        return;
    }
    part *pt = &p->gen[p->ngen++];
    *pt = (part){.name = copy, .data = data, .len = len};
    queue_ahead(p, pt);
}

/* Makes the parts the package writes itself: [Content_Types].xml and every
 * .rels part, all known once the renderer is done. Made before the entries
 * are written, so that they are deflated on both cores like the rest (on the
 * report deck 312 .rels parts had been packed one by one on the closing
 * thread). */
static void make_generated(fo_pkg *p)
{
    add_generated(p, "[Content_Types].xml", gen_content_types(p));
    add_generated(p, "_rels/.rels", gen_rels(p, ""));
    p->gen_head = p->ngen;
    char rn[1100];
    for (size_t i = 0; i < p->nparts && !p->err; i++) {
        rels_name(p->parts[i].name, rn, sizeof rn);
        add_generated(p, rn, gen_rels(p, p->parts[i].name));
    }
}

/* Adds part pt as an entry. */
static void write_part(writer *w, part *pt)
{
    if (pt->spilled) {
        bool stored = true;
        zip_source_t *src = packed_source(w, pt->name, NULL, true, pt->off, pt->len, NULL, &stored);
        if (!src && stored) src = spill_source(w, pt);
        add_source(w, pt->name, src);
    } else if (pt->xml) { /* file-backed */
        const unsigned char *data;
        size_t len;
        void *fp;
        fo_xml__take_output(pt->xml, &data, &len, &fp);
        add_entry(w, pt->name, data, len, fp, NULL);
    } else {
        add_entry(w, pt->name, pt->data, pt->len, NULL, pt->ahead);
    }
}

/* Adds every entry in the package's fixed order (package.h) to w->za; the
 * generated parts are made (make_generated). */
static void write_entries(writer *w)
{
    fo_pkg *p = w->p;
    for (size_t i = 0; i < p->gen_head && !p->err; i++) write_part(w, &p->gen[i]);
    if (p->spill && fflush(p->spill) != 0)
        fo_pkg__fail(p, FO_ERR_IO, "cannot write the package's temporary file (disk full?)");
    for (size_t i = 0; i < p->nparts && !p->err; i++) write_part(w, &p->parts[i]);
    for (size_t i = p->gen_head; i < p->ngen && !p->err; i++) write_part(w, &p->gen[i]);
}

/* 1980-01-01 00:00 in local time: libzip converts with localtime(). */
static time_t dos_epoch(void)
{
    struct tm tm = {.tm_year = 80, .tm_mon = 0, .tm_mday = 1, .tm_isdst = -1};
    return mktime(&tm);
}

/* Frees w's compressor (the sources that used it are gone). */
static void writer_done(writer *w) { libdeflate_free_compressor(w->z); }

static fo_status report(fo_pkg *p, fo_diags *d)
{
    if (p->err != FO_OK) fo_diags_add(d, NULL, 0, 0, NULL, NULL, "%s: %s", p->path, p->why);
    return p->err;
}

/* ---- the archive's own file ------------------------------------------------
 * zip_open(path) makes libzip write a new archive to a temporary file
 * beside path, named with random letters from OpenSSL, and rename it over
 * path at the end: seeding OpenSSL's generator cost 8 M instructions per
 * render, a third of a one-slide deck's. path is already a temporary of its
 * own (render/output.c stages every output), so the archive is written
 * into it in place, through this source: the same bytes, one file fewer.
 *
 * libzip writes an entry in small pieces and seeks back to rewrite its
 * local header (4,769 writes for the report deck's 770 KB); each write woke
 * render/output.c's watchdog thread (inotify). So the source keeps a window
 * of up to DEST_BUF bytes of the file, [base, base + len): writes inside it
 * touch memory only; one that falls wholly before it (a header rewritten
 * after its window went out) goes straight to the file; any other sends
 * the window to the file (pwrite at base) and starts the next one. About
 * two writes per DEST_BUF bytes of archive. */
#define DEST_BUF ((size_t)128 << 10)

typedef struct {
    const char *path; /* borrowed from the package */
    int fd;           /* open while libzip writes, else -1 */
    char *buf;        /* the window: DEST_BUF bytes */
    uint64_t base;    /* its offset in the file */
    size_t len;       /* bytes held */
    uint64_t at;      /* the write position in the file */
    uint64_t size;    /* the file's size, the window aside */
    zip_error_t err;
} dest_src;

/* Writes all n bytes of data at off of fd: 0, or an errno. */
static int pwrite_all(int fd, const void *data, size_t n, uint64_t off)
{
    for (size_t done = 0; done < n;) {
        ssize_t w = pwrite(fd, (const char *)data + done, n - done, (off_t)(off + done));
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return w < 0 ? errno : EIO;
        done += (size_t)w;
    }
    return 0;
}

/* Writes n bytes at off of the file: 0, or -1 with the source's error set. */
static int dest_put(dest_src *s, const void *data, size_t n, uint64_t off)
{
    int e = pwrite_all(s->fd, data, n, off);
    if (e) {
        zip_error_set(&s->err, ZIP_ER_WRITE, e);
        return -1;
    }
    if (off + n > s->size) s->size = off + n;
    return 0;
}

/* Writes the window out; the next one starts empty at the write position. */
static int dest_flush(dest_src *s)
{
    int rc = s->len ? dest_put(s, s->buf, s->len, s->base) : 0;
    s->base = s->at;
    s->len = 0;
    return rc;
}

/* Takes n bytes of data at the write position. */
static zip_int64_t dest_write(dest_src *s, const void *data, zip_uint64_t n)
{
    if (s->at + n <= s->base) { /* wholly before the window */
        if (dest_put(s, data, n, s->at) < 0) return -1;
    } else {
        if ((s->at < s->base || s->at > s->base + s->len || s->at - s->base + n > DEST_BUF) &&
            dest_flush(s) < 0)
            return -1;
        if (n >= DEST_BUF) { /* a big piece goes straight to the file */
            if (dest_put(s, data, n, s->at) < 0) return -1;
            s->base = s->at + n;
        } else {
            memcpy(s->buf + (s->at - s->base), data, n);
            if (s->at - s->base + n > s->len) s->len = (size_t)(s->at - s->base + n);
        }
    }
    s->at += n;
    return (zip_int64_t)n;
}

/* Moves the write position as libzip asks (data: its zip_source_args_seek). */
static zip_int64_t dest_seek(dest_src *s, void *data, zip_uint64_t n)
{
    uint64_t end = s->base + s->len > s->size ? s->base + s->len : s->size;
    zip_int64_t to = zip_source_seek_compute_offset(s->at, end, data, n, &s->err);
    if (to < 0) return -1;
    s->at = (uint64_t)to;
    return 0;
}

static zip_int64_t dest_cmd(void *ud, void *data, zip_uint64_t n, zip_source_cmd_t cmd)
{
    dest_src *s = ud;
    switch (cmd) {
    case ZIP_SOURCE_SUPPORTS: return ZIP_SOURCE_SUPPORTS_WRITABLE;
    case ZIP_SOURCE_STAT: /* nothing to read: libzip starts a new archive */
        zip_error_set(&s->err, ZIP_ER_READ, ENOENT);
        return -1;
    case ZIP_SOURCE_ERROR: return zip_error_to_data(&s->err, data, n);
    case ZIP_SOURCE_BEGIN_WRITE:
        s->base = s->size = s->at = 0;
        s->len = 0;
        s->fd = open(s->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
        if (s->fd < 0) {
            zip_error_set(&s->err, ZIP_ER_OPEN, errno);
            return -1;
        }
        return 0;
    case ZIP_SOURCE_WRITE: return dest_write(s, data, n);
    case ZIP_SOURCE_SEEK_WRITE: return dest_seek(s, data, n);
    case ZIP_SOURCE_TELL_WRITE: return (zip_int64_t)s->at;
    case ZIP_SOURCE_COMMIT_WRITE: {
        int rc = dest_flush(s);
        if (close(s->fd) < 0 && rc == 0) {
            zip_error_set(&s->err, ZIP_ER_WRITE, errno);
            rc = -1;
        }
        s->fd = -1;
        return rc;
    }
    case ZIP_SOURCE_ROLLBACK_WRITE: /* nothing half-written is left behind */
        s->len = 0;
        if (s->fd >= 0) {
            (void)!ftruncate(s->fd, 0);
            close(s->fd);
            s->fd = -1;
        }
        return 0;
    case ZIP_SOURCE_REMOVE:
        if (unlink(s->path) < 0 && errno != ENOENT) {
            zip_error_set(&s->err, ZIP_ER_REMOVE, errno);
            return -1;
        }
        return 0;
    case ZIP_SOURCE_FREE:
        if (s->fd >= 0) close(s->fd);
        zip_error_fini(&s->err);
        fo_free(s->buf);
        fo_free(s);
        return 0;
    case ZIP_SOURCE_OPEN:
    case ZIP_SOURCE_READ:
    case ZIP_SOURCE_CLOSE:
    case ZIP_SOURCE_SEEK:
    case ZIP_SOURCE_TELL:
    case ZIP_SOURCE_RESERVED_1:
    case ZIP_SOURCE_BEGIN_WRITE_CLONING:
    case ZIP_SOURCE_ACCEPT_EMPTY:
    case ZIP_SOURCE_GET_FILE_ATTRIBUTES:
    default: /* a new archive is never read back */ zip_error_set(&s->err, ZIP_ER_OPNOTSUPP, 0); return -1;
    }
}

/* An archive that libzip writes straight into path; NULL (and *zerr) on failure. */
static zip_t *open_dest(const char *path, int *zerr)
{
    dest_src *s = fo_calloc(1, sizeof *s);
    char *buf = s ? fo_malloc(DEST_BUF) : NULL;
    if (!buf) {
        fo_free(s);
        *zerr = ZIP_ER_MEMORY;
        return NULL;
    }
    s->buf = buf;
    s->path = path;
    s->fd = -1;
    zip_error_init(&s->err);
    zip_error_t err;
    zip_error_init(&err);
    zip_source_t *src = zip_source_function_create(dest_cmd, s, &err);
    zip_t *za = src ? zip_open_from_source(src, ZIP_CREATE | ZIP_TRUNCATE, &err) : NULL;
    if (!src) {
        zip_error_fini(&s->err);
        fo_free(s->buf);
        fo_free(s);
    } else if (!za) zip_source_free(src);
    *zerr = za ? 0 : zip_error_code_zip(&err);
    zip_error_fini(&err);
    return za;
}

zip_t *fo_pkg__open_dest(const char *path, int *zerr) { return open_dest(path, zerr); }

fo_status fo_pkg_close(fo_pkg *p, fo_diags *d)
{
    if (!p) return FO_ERR_NOMEM;
    writer w = {0};
    w.p = p;
    w.stamp = dos_epoch();
    if (p->err == FO_OK) {
        int zerr = 0;
        w.za = open_dest(p->path, &zerr);
        if (!w.za) {
            char why[160];
            snprintf(why, sizeof why, "cannot create the archive (libzip error %d)", zerr);
            fo_pkg__fail(p, zerr == ZIP_ER_MEMORY ? FO_ERR_NOMEM : FO_ERR_IO, why);
        }
    }
    if (p->err == FO_OK) {
        make_generated(p);
        if (p->packer && !w.z) w.z = libdeflate_alloc_compressor(FO_PKG_LIBDEFLATE_LEVEL);
        packer_drain(p->packer, w.z);
        write_entries(&w);
    }
    if (w.za) {
        if (p->err == FO_OK) {
            if (zip_close(w.za) < 0) { /* written in place: path keeps its mode */
                zip_fail(&w, "cannot write", p->path);
                zip_discard(w.za);
            }
        } else {
            zip_discard(w.za);
        }
    }
    writer_done(&w);
    return report(p, d);
}

/* The bytes of a closed buffer source, fo_malloc'd; NULL on failure. */
static void *source_bytes(zip_source_t *src, size_t *len)
{
    zip_stat_t st;
    void *out = NULL;
    if (zip_source_stat(src, &st) < 0 || !(st.valid & ZIP_STAT_SIZE) || zip_source_open(src) < 0) return NULL;
    out = fo_malloc(st.size ? st.size : 1);
    if (out && zip_source_read(src, out, st.size) != (zip_int64_t)st.size) {
        fo_free(out);
        out = NULL;
    }
    zip_source_close(src);
    if (out) *len = (size_t)st.size;
    return out;
}

/* ---- a stored archive, written here ----------------------------------------
 * fo_pkg_close_memory's archive (a chart's workbook: seven small parts,
 * every one stored) is written directly, in the bytes libzip writes for it:
 * libzip's zip_close, its sources and its buffer cost 165 K instructions a
 * workbook, 8.3 M on the 50-chart report deck, where this costs the CRCs
 * and one copy. Each local header is followed by its data (no descriptor,
 * no extra field); the central directory says "made by" UNIX and ZIP 6.3
 * (libzip's), version 1.0 needed, mode 0100644; the time is 1980-01-01
 * 00:00 (DOS date 0x21, time 0), the stamp every entry gets (dos_epoch).
 * A package that holds a part spilled or file-backed, or that a zip
 * without its ZIP64 extensions cannot hold, goes through libzip instead;
 * tests compare the two (t_package). */
#define ZIP_DOS_DATE 0x21u  /* 1980-01-01 */
#define ZIP_MADE_BY 0x033Fu /* UNIX, ZIP 6.3 */

static void le16(unsigned char *o, unsigned v)
{
    o[0] = (unsigned char)(v & 0xFF);
    o[1] = (unsigned char)(v >> 8 & 0xFF);
}

static void le32(unsigned char *o, uint32_t v)
{
    le16(o, v & 0xFFFF);
    le16(o + 2, v >> 16);
}

/* The n-th entry of the package's fixed order (write_entries). */
static const part *entry_at(const fo_pkg *p, size_t n)
{
    if (n < p->gen_head) return &p->gen[n];
    n -= p->gen_head;
    return n < p->nparts ? &p->parts[n] : &p->gen[p->gen_head + n - p->nparts];
}

/* True when every entry is in memory and the archive fits plain zip. */
static bool storable(const fo_pkg *p)
{
    size_t n = p->ngen + p->nparts;
    uint64_t total = 22;
    if (n >= 0xFFFF) return false;
    for (size_t i = 0; i < n; i++) {
        const part *pt = entry_at(p, i);
        if (pt->spilled || pt->xml || (!pt->data && pt->len)) return false;
        total += 76 + 2 * (uint64_t)strlen(pt->name) + pt->len;
    }
    return total < 0xFFFFFFFFu;
}

/* The 26 bytes a stored entry's local header (at its offset 4) and its
 * central directory record (at 6) share: version needed 1.0, no flags,
 * stored, the DOS time and date, the CRC, both sizes, the name's length, no
 * extra field. */
static void stored_fields(unsigned char *o, uint32_t crc, size_t len, size_t name_len)
{
    le16(o, 10);
    le16(o + 2, 0);
    le16(o + 4, 0);
    le16(o + 6, 0);
    le16(o + 8, ZIP_DOS_DATE);
    le32(o + 10, crc);
    le32(o + 14, (uint32_t)len);
    le32(o + 18, (uint32_t)len);
    le16(o + 22, (unsigned)name_len);
    le16(o + 24, 0);
}

/* The stored archive of p's entries (fo_malloc'd, *len bytes); NULL when
 * out of memory. */
static void *stored_archive(const fo_pkg *p, size_t *len)
{
    size_t n = p->ngen + p->nparts, size = 22;
    for (size_t i = 0; i < n; i++) size += 76 + 2 * strlen(entry_at(p, i)->name) + entry_at(p, i)->len;
    uint32_t *crc = fo_malloc((n + 1) * sizeof *crc), *off = fo_malloc((n + 1) * sizeof *off);
    unsigned char *a = fo_malloc(size), *o = a;
    if (!crc || !off || !a) {
        fo_free(crc);
        fo_free(off);
        fo_free(a);
        return NULL;
    }
    for (size_t i = 0; i < n; i++) { /* local header, name, data */
        const part *pt = entry_at(p, i);
        size_t nl = strlen(pt->name);
        crc[i] = libdeflate_crc32(0, pt->data, pt->len);
        off[i] = (uint32_t)(o - a);
        le32(o, 0x04034B50u);
        stored_fields(o + 4, crc[i], pt->len, nl);
        memcpy(o + 30, pt->name, nl);
        if (pt->len) memcpy(o + 30 + nl, pt->data, pt->len);
        o += 30 + nl + pt->len;
    }
    unsigned char *cd = o;
    for (size_t i = 0; i < n; i++) { /* the central directory */
        const part *pt = entry_at(p, i);
        size_t nl = strlen(pt->name);
        le32(o, 0x02014B50u);
        le16(o + 4, ZIP_MADE_BY);
        stored_fields(o + 6, crc[i], pt->len, nl);
        le16(o + 32, 0);
        le16(o + 34, 0);
        le16(o + 36, 0);
        le32(o + 38, 0100644u << 16);
        le32(o + 42, off[i]);
        memcpy(o + 46, pt->name, nl);
        o += 46 + nl;
    }
    le32(o, 0x06054B50u);
    le16(o + 4, 0);
    le16(o + 6, 0);
    le16(o + 8, (unsigned)n);
    le16(o + 10, (unsigned)n);
    le32(o + 12, (uint32_t)(o - cd));
    le32(o + 16, (uint32_t)(cd - a));
    le16(o + 20, 0);
    o += 22;
    fo_free(crc);
    fo_free(off);
    *len = (size_t)(o - a);
    return a;
}

fo_status fo_pkg_close_memory(fo_pkg *p, void **out, size_t *len, fo_diags *d)
{
    *out = NULL;
    *len = 0;
    if (!p) return FO_ERR_NOMEM;
    if (p->packer) /* its parts' bytes went to the thread, and are deflated */
        fo_pkg__fail(p, FO_ERR_INTERNAL, "a package deflated ahead is written to a file");
    if (p->err == FO_OK) make_generated(p);
    if (p->err == FO_OK && !p->via_libzip && storable(p)) {
        if (!(*out = stored_archive(p, len))) fo_pkg__fail(p, FO_ERR_NOMEM, NULL);
        return report(p, d);
    }
    writer w = {0};
    w.p = p;
    w.stamp = dos_epoch();
    w.store = true;
    zip_source_t *buf = NULL;
    if (p->err == FO_OK) {
        buf = zip_source_buffer_create(NULL, 0, 0, NULL);
        if (buf) zip_source_keep(buf); /* ours after zip_close */
        w.za = buf ? zip_open_from_source(buf, ZIP_TRUNCATE, NULL) : NULL;
        if (!w.za) fo_pkg__fail(p, FO_ERR_NOMEM, "cannot start an archive in memory");
    }
    if (p->err == FO_OK) write_entries(&w);
    if (w.za) {
        if (p->err == FO_OK && zip_close(w.za) < 0) {
            zip_fail(&w, "cannot write", p->path);
            zip_discard(w.za);
        } else if (p->err != FO_OK) {
            zip_discard(w.za);
        }
    }
    if (p->err == FO_OK && !(*out = source_bytes(buf, len)))
        fo_pkg__fail(p, FO_ERR_NOMEM, "cannot read the archive back from memory");
    if (buf) zip_source_free(buf);
    writer_done(&w);
    return report(p, d);
}
