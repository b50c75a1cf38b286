/* sign.c — signed run records (PRODUCT.md §9, docs/provenance.md).
 *
 * `folio sign MANIFEST --key KEY` (what `folio run --sign KEY` calls after
 * writing its --out DIR) writes MANIFEST's sibling manifest.dsse.json: an
 * in-toto Statement v1 whose subjects are every file the manifest lists
 * (the program's and the render's, each with its SHA-256, checked against
 * the file on disk) and whose predicate is the manifest itself, in a DSSE
 * envelope signed with Ed25519. `folio verify ENVELOPE [FILE...] --key PUB`
 * checks the signature over DSSE's pre-authentication encoding and that each
 * FILE's SHA-256 is a subject. OpenSSL's libcrypto does the cryptography
 * (already loaded into folio-engine by libzip: no new start-up cost). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include "cli/cli.h"
#include "base/usage.h"
#include <fcntl.h>
#include <unistd.h>

#define PAYLOAD_TYPE "application/vnd.in-toto+json"
#define PREDICATE_TYPE "https://folio.invalid/run/v1"
#define ENVELOPE_NAME "manifest.dsse.json"

/* ---- keys ------------------------------------------------------------------*/
/* An Ed25519 key from a PEM file: private (PKCS#8, `openssl genpkey
 * -algorithm ed25519`) when private, else public (SubjectPublicKeyInfo,
 * `openssl pkey -pubout`) or a private one whose public half is used. */
static EVP_PKEY *load_key(const char *path, int private, const char *cmd)
{
    FILE *f = fopen(path, "r");
    EVP_PKEY *k = NULL;
    if (!f) {
        fprintf(stderr, "folio: %s: %s: cannot open the key: %s\n", cmd, path, strerror(errno));
        return NULL;
    }
    k = private ? PEM_read_PrivateKey(f, NULL, NULL, NULL) : PEM_read_PUBKEY(f, NULL, NULL, NULL);
    if (!k && !private) {            /* a private key verifies too */
        rewind(f);
        k = PEM_read_PrivateKey(f, NULL, NULL, NULL);
    }
    fclose(f);
    if (!k || EVP_PKEY_get_id(k) != EVP_PKEY_ED25519) {
        fprintf(stderr, "folio: %s: %s: not an Ed25519 %s key in PEM (make one with `openssl genpkey "
                "-algorithm ed25519 -out key.pem`; its public key with `openssl pkey -in key.pem "
                "-pubout -out key.pub`)\n", cmd, path, private ? "private" : "public");
        EVP_PKEY_free(k);
        return NULL;
    }
    return k;
}

/* Lowercase hex of n bytes. */
static void hex(const unsigned char *p, size_t n, char *out)
{
    for (size_t k = 0; k < n; k++) snprintf(out + 2 * k, 3, "%02x", p[k]);
}

/* Hex SHA-256 of the file at path (libcrypto's); false when it can't be read. */
static bool sha256_file(const char *path, char out[65])
{
    unsigned char buf[65536], dig[32];
    unsigned int dlen = 0;
    size_t n;
    FILE *f = fopen(path, "rb");
    EVP_MD_CTX *md = f ? EVP_MD_CTX_new() : NULL;
    bool ok = md && EVP_DigestInit_ex(md, EVP_sha256(), NULL) == 1;
    while (ok && (n = fread(buf, 1, sizeof buf, f)) > 0) ok = EVP_DigestUpdate(md, buf, n) == 1;
    ok = ok && !ferror(f) && EVP_DigestFinal_ex(md, dig, &dlen) == 1 && dlen == 32;
    if (ok) hex(dig, 32, out);
    EVP_MD_CTX_free(md);
    if (f) fclose(f);
    return ok;
}

/* The key id: hex SHA-256 of the 32 raw bytes of the public key. */
static int key_id(EVP_PKEY *k, char out[65])
{
    unsigned char raw[32];
    size_t n = sizeof raw;
    if (EVP_PKEY_get_raw_public_key(k, raw, &n) != 1 || n != 32) return -1;
    unsigned char dig[32];
    if (EVP_Digest(raw, n, dig, NULL, EVP_sha256(), NULL) != 1) return -1;
    hex(dig, 32, out);
    return 0;
}

/* ---- DSSE ------------------------------------------------------------------*/
/* PAE(type, body) = "DSSEv1" SP LEN(type) SP type SP LEN(body) SP body. */
static char *pae(const char *type, const unsigned char *body, size_t len, size_t *out_len)
{
    char head[128];
    int h = snprintf(head, sizeof head, "DSSEv1 %zu ", strlen(type));
    size_t tlen = strlen(type);
    char tail[32];
    int t = snprintf(tail, sizeof tail, " %zu ", len);
    char *out = fo_malloc((size_t)h + tlen + (size_t)t + len + 1);
    if (!out) return NULL;
    memcpy(out, head, (size_t)h);
    memcpy(out + h, type, tlen);
    memcpy(out + h + tlen, tail, (size_t)t);
    memcpy(out + h + tlen + t, body, len);
    *out_len = (size_t)h + tlen + (size_t)t + len;
    out[*out_len] = 0;
    return out;
}

static char *b64_encode(const unsigned char *p, size_t n)
{
    char *out = fo_malloc(4 * ((n + 2) / 3) + 1);
    if (out) EVP_EncodeBlock((unsigned char *)out, p, (int)n);
    return out;
}

/* Standard or URL-safe base64, padded or not (DSSE allows either); NULL if invalid. */
static unsigned char *b64_decode(const char *s, size_t *out_len)
{
    size_t n = strlen(s), k;
    char *t = fo_malloc(n + 4);
    unsigned char *out = fo_malloc(n / 4 * 3 + 4);
    if (!t || !out) goto fail;
    for (k = 0; k < n; k++) t[k] = s[k] == '-' ? '+' : s[k] == '_' ? '/' : s[k];
    while (k % 4) t[k++] = '=';
    t[k] = 0;
    int got = EVP_DecodeBlock(out, (unsigned char *)t, (int)k);
    if (got < 0) goto fail;
    for (size_t e = k; e > 0 && t[e - 1] == '='; e--) got--;   /* DecodeBlock counts padding */
    fo_free(t);
    *out_len = (size_t)got;
    return out;
fail:
    fo_free(t);
    fo_free(out);
    return NULL;
}

/* ---- sign ------------------------------------------------------------------*/
/* Writes path atomically: a temporary file beside it, synced, renamed. 0 or -1. */
static int write_atomic(const char *path, const char *data, size_t len)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp-%ld", path, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) return -1;
    bool ok = write(fd, data, len) == (ssize_t)len && fsync(fd) == 0;
    ok = close(fd) == 0 && ok;
    if (!ok || rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        errno = e;
        return -1;
    }
    return 0;
}

/* Adds to subj one {"name", "digest": {"sha256"}} for each of files (the
 * manifest's [{name, sha256, ...}]), checking each against dir/name. */
static int add_subjects(json_t *subj, json_t *files, const char *dir)
{
    size_t k;
    json_t *f;
    json_array_foreach(files, k, f) {
        const char *name = json_string_value(json_object_get(f, "name"));
        const char *sha = json_string_value(json_object_get(f, "sha256"));
        char path[4096], now[65];
        if (!name || !sha) continue;
        snprintf(path, sizeof path, "%s/%s", dir, name);
        if (!sha256_file(path, now) || strcmp(now, sha)) {
            fprintf(stderr, "folio: sign: %s: %s since the manifest was written; not signed\n", path,
                    sha256_file(path, now) ? "changed" : "missing");
            return -1;
        }
        json_array_append_new(subj, json_pack("{s:s, s:{s:s}}", "name", name, "digest", "sha256", sha));
    }
    return 0;
}

/* The Statement's text: subjects built with jansson, the manifest's own
 * bytes as the predicate (not re-serialized). NULL on a problem (said). */
static char *statement(const char *manifest_path, const char *text, size_t len)
{
    json_error_t err;
    json_t *m = json_loadb(text, len, JSON_REJECT_DUPLICATES, &err), *subj = json_array();
    char dir[4096], *s = NULL, *subj_text = NULL;
    const char *slash = strrchr(manifest_path, '/');
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - manifest_path) : 1, slash ? manifest_path : ".");
    if (!m || !json_is_object(m) || !json_object_get(m, "folio_run")) {
        fprintf(stderr, "folio: sign: %s: not a folio run manifest%s%s\n", manifest_path, m ? "" : ": ",
                m ? "" : err.text);
    } else if (add_subjects(subj, json_object_get(m, "files"), dir) == 0 &&
               add_subjects(subj, json_object_get(json_object_get(m, "render"), "files"), dir) == 0 &&
               (subj_text = json_dumps(subj, JSON_COMPACT | JSON_PRESERVE_ORDER))) {
        static const char head[] = "{\"_type\":\"https://in-toto.io/Statement/v1\",\"subject\":",
                          mid[] = ",\"predicateType\":\"" PREDICATE_TYPE "\",\"predicate\":";
        size_t sl = strlen(subj_text);
        while (len && (text[len - 1] == '\n' || text[len - 1] == ' ')) len--;
        if ((s = fo_malloc(sizeof head + sl + sizeof mid + len + 2))) {
            char *w = s;
            memcpy(w, head, sizeof head - 1), w += sizeof head - 1;
            memcpy(w, subj_text, sl), w += sl;
            memcpy(w, mid, sizeof mid - 1), w += sizeof mid - 1;
            memcpy(w, text, len), w += len;
            memcpy(w, "}", 2);
        }
    }
    free(subj_text);
    json_decref(subj);
    json_decref(m);
    return s;
}

static int sign_manifest(const char *manifest, const char *keyfile, bool quiet)
{
    size_t len = 0, plen = 0, siglen = 0;
    char *text = fo_cli_read_file(manifest, 64u << 20, &len), *st = NULL, *msg = NULL, kid[65];
    char *payload = NULL, *sig64 = NULL, *env = NULL, dest[4096];
    unsigned char sig[64];
    EVP_PKEY *k = NULL;
    EVP_MD_CTX *md = NULL;
    int rc = 5;
    if (!text) {
        fprintf(stderr, "folio: sign: %s: cannot read: %s\n", manifest, strerror(errno));
        return 5;
    }
    if (!(k = load_key(keyfile, 1, "sign")) || key_id(k, kid) < 0) { rc = 2; goto out; }
    if (!(st = statement(manifest, text, len))) { rc = 2; goto out; }
    msg = pae(PAYLOAD_TYPE, (const unsigned char *)st, strlen(st), &plen);
    siglen = sizeof sig;
    if (!msg || !(md = EVP_MD_CTX_new()) || EVP_DigestSignInit(md, NULL, NULL, NULL, k) != 1 ||
        EVP_DigestSign(md, sig, &siglen, (const unsigned char *)msg, plen) != 1) {
        fprintf(stderr, "folio: sign: the signature could not be made (libcrypto)\n");
        goto out;
    }
    payload = b64_encode((const unsigned char *)st, strlen(st));
    sig64 = b64_encode(sig, siglen);
    json_t *e = json_pack("{s:s, s:s, s:[{s:s, s:s}]}", "payloadType", PAYLOAD_TYPE, "payload", payload,
                          "signatures", "keyid", kid, "sig", sig64);
    env = e ? json_dumps(e, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : NULL;
    json_decref(e);
    const char *slash = strrchr(manifest, '/');
    snprintf(dest, sizeof dest, "%.*s" ENVELOPE_NAME, slash ? (int)(slash - manifest + 1) : 0, manifest);
    if (!env || write_atomic(dest, env, strlen(env)) != 0) {
        fprintf(stderr, "folio: sign: %s: cannot write: %s\n", dest, strerror(errno));
        goto out;
    }
    if (!quiet) fprintf(stderr, "folio: sign: wrote %s (key %.16s...)\n", dest, kid);
    rc = 0;
out:
    EVP_MD_CTX_free(md);
    EVP_PKEY_free(k);
    fo_free(text);
    fo_free(st);
    fo_free(msg);
    fo_free(payload);
    fo_free(sig64);
    free(env);
    return rc;
}

int fo_cli_sign(int argc, char **argv)
{
    const char *manifest = NULL, *key = NULL;
    bool quiet = false;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--key") && i + 1 < argc) key = argv[++i];
        else if (!strcmp(argv[i], "--quiet") || !strcmp(argv[i], "-q")) quiet = true;
        else if (argv[i][0] == '-') return fo_usage_error("sign", "unknown option %s", argv[i]);
        else if (!manifest) manifest = argv[i];
        else return fo_usage_error("sign", "unexpected argument \"%s\"", argv[i]);
    }
    if (!manifest || !key) return fo_usage_error("sign", "sign takes MANIFEST --key KEYFILE");
    return sign_manifest(manifest, key, quiet);
}

/* ---- verify ----------------------------------------------------------------*/
/* 0 when one of env's signatures verifies with k over PAE(payloadType,
 * payload); the decoded payload in *body. */
static int check_signature(json_t *env, EVP_PKEY *k, unsigned char **body, size_t *blen)
{
    const char *type = json_string_value(json_object_get(env, "payloadType"));
    const char *payload = json_string_value(json_object_get(env, "payload"));
    json_t *sigs = json_object_get(env, "signatures"), *s;
    size_t i, plen;
    int ok = 0;
    if (!type || !payload || !json_is_array(sigs) || !(*body = b64_decode(payload, blen))) return -1;
    char *msg = pae(type, *body, *blen, &plen);
    json_array_foreach(sigs, i, s) {
        size_t slen;
        const char *s64 = json_string_value(json_object_get(s, "sig"));
        unsigned char *sig = s64 ? b64_decode(s64, &slen) : NULL;
        EVP_MD_CTX *md = EVP_MD_CTX_new();
        if (sig && md && msg && EVP_DigestVerifyInit(md, NULL, NULL, NULL, k) == 1 &&
            EVP_DigestVerify(md, sig, slen, (const unsigned char *)msg, plen) == 1)
            ok = 1;
        EVP_MD_CTX_free(md);
        fo_free(sig);
        if (ok) break;
    }
    fo_free(msg);
    return ok && !strcmp(type, PAYLOAD_TYPE) ? 0 : -1;
}

/* The subject of the statement with this digest, or NULL. */
static const char *subject_for(json_t *stmt, const char *sha)
{
    size_t i;
    json_t *s;
    json_array_foreach(json_object_get(stmt, "subject"), i, s)
        if (!strcmp(json_string_value(json_object_get(json_object_get(s, "digest"), "sha256")) ?: "", sha))
            return json_string_value(json_object_get(s, "name")) ?: "";
    return NULL;
}

int fo_cli_verify(int argc, char **argv)
{
    const char *envpath = NULL, *key = NULL, *files[64];
    size_t nfiles = 0, blen = 0;
    bool quiet = false;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--key") && i + 1 < argc) key = argv[++i];
        else if (!strcmp(argv[i], "--quiet") || !strcmp(argv[i], "-q")) quiet = true;
        else if (argv[i][0] == '-') return fo_usage_error("verify", "unknown option %s", argv[i]);
        else if (!envpath) envpath = argv[i];
        else if (nfiles < 64) files[nfiles++] = argv[i];
        else return fo_usage_error("verify", "at most 64 FILEs at once");
    }
    if (!envpath || !key) return fo_usage_error("verify", "verify takes ENVELOPE [FILE...] --key PUBKEY");
    EVP_PKEY *k = load_key(key, 0, "verify");
    if (!k) return 2;
    json_error_t err;
    json_t *env = json_load_file(envpath, JSON_REJECT_DUPLICATES, &err), *stmt = NULL;
    unsigned char *body = NULL;
    int rc = 2;
    if (!env) {
        fprintf(stderr, "folio: verify: %s: not a DSSE envelope: %s\n", envpath, err.text);
    } else if (check_signature(env, k, &body, &blen) < 0) {
        fprintf(stderr, "folio: verify: %s: BAD signature: no signature of this envelope verifies with "
                "%s (tampered, or signed with another key)\n", envpath, key);
    } else if (!(stmt = json_loadb((const char *)body, blen, 0, &err)) ||
               strcmp(json_string_value(json_object_get(stmt, "_type")) ?: "",
                      "https://in-toto.io/Statement/v1")) {
        fprintf(stderr, "folio: verify: %s: signed, but the payload is not an in-toto Statement v1\n", envpath);
    } else {
        rc = 0;
        if (!quiet) printf("%s: signature good (%s)\n", envpath,
                           json_string_value(json_object_get(stmt, "predicateType")) ?: "?");
        for (size_t i = 0; i < nfiles; i++) {
            char sha[65];
            const char *name;
            if (!sha256_file(files[i], sha)) {
                fprintf(stderr, "folio: verify: %s: cannot read: %s\n", files[i], strerror(errno));
                rc = 2;
            } else if (!(name = subject_for(stmt, sha))) {
                fprintf(stderr, "folio: verify: %s: NOT in the record (its SHA-256 %s is no subject of %s)\n",
                        files[i], sha, envpath);
                rc = 2;
            } else if (!quiet) {
                printf("%s: ok (subject %s, sha256 %s)\n", files[i], name, sha);
            }
        }
    }
    json_decref(stmt);
    json_decref(env);
    fo_free(body);
    EVP_PKEY_free(k);
    return rc;
}
