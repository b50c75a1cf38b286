/* usage.h — the one shape of a command-line usage error, shared by every
 * command of both binaries (folio-engine and the static folio launcher, which
 * links this file through libfolio-sandbox.a). */
#ifndef FO_CLI_USAGE_H
#define FO_CLI_USAGE_H

/* Prints "folio: CMD: message" and "Try 'folio help CMD'." on stderr (cmd
 * NULL: "folio: message" and "Try 'folio --help'."). Returns 1, the usage
 * exit code of every command. */
int fo_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
