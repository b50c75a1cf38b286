/* sha256.h — SHA-256 (FIPS 180-4) for the --json manifest and the sandbox. */
#ifndef FO_SHA256_H
#define FO_SHA256_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint32_t h[8];
    uint64_t len;
    unsigned char buf[64];
    size_t nbuf;
} fo_sha256;

void fo_sha256_init(fo_sha256 *s);
void fo_sha256_update(fo_sha256 *s, const void *data, size_t len);
void fo_sha256_final(fo_sha256 *s, unsigned char out[32]);
/* Lowercase hex digest of a buffer; out holds 64 chars + NUL. */
void fo_sha256_hex(const void *data, size_t len, char out[65]);
/* Digest of a file; false on I/O error. */
int fo_sha256_file_hex(const char *path, char out[65]);
/* Tests: on, blocks skip the SHA extensions for the portable code. */
void fo_sha256__force_portable(bool on);

#endif
