/* env.c — `folio env [--json] [--refresh]`: what a cell can import and
 * install (PRODUCT.md §11, docs/environment.md).
 *
 * The list comes from inside a jail: `folio run` starts the jail's own
 * /usr/bin/python3 -I on a small script that reads the installed
 * distributions (importlib.metadata over the jail's sys.path) and the
 * modules without metadata, and prints the listing twice, as JSON and as
 * text, separated by a record separator line. That output is cached in the
 * per-user runtime folder (the sessions' one: folio serve's own folder
 * under it) under a fingerprint of what the jail would read: the
 * interpreter, the folders of its packages, node and npm, this folio's
 * version, the script and the packages preset. A cached answer costs a few
 * stat calls; a changed system gets a new listing at the next call. */
#define FO_SANDBOX_PRIVATE
#define FO_SESSION_PRIVATE
#include "sandbox/sandbox.h"
#include "sandbox/egress/egress.h"
#include "sandbox/env.h"
#include "sandbox/session.h"
#include "base/sha256.h"
#include "base/usage.h"

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define ENV_MAX   (4u << 20)     /* bytes of listing kept */
#define CACHE     "env.cache"
#define SEPARATOR "\n\036\n"      /* between the JSON and the text */

/* Run by the jail's python3 -I; argv[1:] are the hosts of --net packages. */
static const char env_script[] =
    "import importlib.metadata as md, json, os, pkgutil, subprocess, sys\n"
    "hosts = sys.argv[1:]\n"
    "tops = {}\n"
    "for top, names in md.packages_distributions().items():\n"
    "    for n in names:\n"
    "        tops.setdefault(n.lower(), set()).add(top)\n"
    "sites = [p for p in sys.path if p.endswith(('-packages', '-packages/'))]\n"
    "avail = {m.name for m in pkgutil.iter_modules(sites)}\n"
    "pkgs = {}\n"
    "for d in md.distributions():\n"
    "    name = d.metadata['Name']\n"
    "    if not name or name.lower() in pkgs:\n"
    "        continue\n"
    "    imp = sorted(t for t in tops.get(name.lower(), ()) if t.isidentifier() and not t.startswith('_'))\n"
    "    guess = [g for g in (name.replace('-', '_'), name.replace('-', '_').lower()) if g in avail]\n"
    "    imp = imp or guess[:1]   # metadata that names no files (some Debian egg-info)\n"
    "    pkgs[name.lower()] = {'name': name, 'version': d.version, 'imports': imp}\n"
    "covered = {t for p in pkgs.values() for t in p['imports']}\n"
    "for m in pkgutil.iter_modules(sites):\n"
    "    if m.name.isidentifier() and not m.name.startswith('_') and m.name not in covered:\n"
    "        pkgs.setdefault(m.name.lower(), {'name': m.name, 'version': None, 'imports': [m.name]})\n"
    "        covered.add(m.name)\n"
    "def version(cmd):\n"
    "    try:\n"
    "        return subprocess.run(cmd, capture_output=True, text=True, timeout=20).stdout.strip() or None\n"
    "    except Exception:\n"
    "        return None\n"
    "node, npm = version(['node', '--version']), version(['npm', '--version'])\n"
    "install = {\n"
    "    'policy': '--net packages (or --net allow=LIST naming packages)',\n"
    "    'hosts': hosts,\n"
    "    'pip': 'pip install NAME (also python3 -m pip, sys.executable -m pip): into the '\n"
    "           'session\\'s /work/.venv, which sees every package listed here',\n"
    "    'npm': 'npm install NAME: into /work/node_modules (-g: /work/.npm-global)' if npm else None,\n"
    "    'without_network': 'pip install /work/FILE.whl of an uploaded wheel',\n"
    "    'where': 'installs live in /work: they survive hibernation, never touch the host'}\n"
    "out = {'python': {'version': sys.version.split()[0], 'executable': '/usr/bin/python3',\n"
    "                  'implementation': sys.implementation.name},\n"
    "       'node': node, 'npm': npm,\n"
    "       'packages': sorted(pkgs.values(), key=lambda p: p['name'].lower()),\n"
    "       'install': install}\n"
    "print(json.dumps(out, indent=1))\n"
    "print('\\x1e')\n"
    "print('Python %s (%s)%s' % (out['python']['version'], out['python']['executable'],\n"
    "      ', node %s, npm %s' % (node, npm) if node and npm else ''))\n"
    "w = max([len(p['name']) for p in out['packages']] + [7])\n"
    "print('%-*s  %-14s %s' % (w, 'PACKAGE', 'VERSION', 'IMPORT'))\n"
    "for p in out['packages']:\n"
    "    print('%-*s  %-14s %s' % (w, p['name'], p['version'] or '-', ' '.join(p['imports']) or '-'))\n"
    "print('%d packages. Installs go into the session (/work), never the host:' % len(out['packages']))\n"
    "print('  --net packages: pip install NAME%s, from %s' % (' / npm install NAME' if npm else '',\n"
    "      ', '.join(hosts)))\n"
    "print('  without network: pip install /work/FILE.whl (an uploaded wheel)')\n";

/* Host paths whose change changes what the jail imports (globs). */
static const char *const watched[] = {
    "/usr/bin/python3", "/usr/lib/python3/dist-packages", "/usr/lib/python3.*",
    "/usr/lib/python3.*/dist-packages", "/usr/lib/python3.*/site-packages",
    "/usr/local/lib/python3.*/dist-packages", "/usr/local/lib/python3.*/site-packages",
    "/usr/bin/node", "/usr/bin/npm", "/usr/local/bin/node", "/usr/lib/node_modules",
};

/* The cache key, 64 hex digits. */
static void fingerprint(char hex[65])
{
    fo_sha256 h;
    unsigned char d[32];

    fo_sha256_init(&h);
    fo_sha256_update(&h, FOLIO_VERSION, strlen(FOLIO_VERSION));
    fo_sha256_update(&h, env_script, sizeof env_script);
    for (size_t k = 0; fo_egress_packages[k]; k++)
        fo_sha256_update(&h, fo_egress_packages[k], strlen(fo_egress_packages[k]) + 1);
    for (size_t k = 0; k < sizeof watched / sizeof *watched; k++) {
        glob_t g;
        if (glob(watched[k], 0, NULL, &g) != 0) continue;
        for (size_t i = 0; i < g.gl_pathc; i++) {
            struct stat st;
            char line[4200];
            int n;
            if (stat(g.gl_pathv[i], &st) < 0) continue;
            n = snprintf(line, sizeof line, "%s %llu %llu %lld.%09ld %lld\n", g.gl_pathv[i],
                         (unsigned long long)st.st_dev, (unsigned long long)st.st_ino,
                         (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec, (long long)st.st_size);
            if (n > 0 && (size_t)n < sizeof line) fo_sha256_update(&h, line, (size_t)n);
        }
        globfree(&g);
    }
    fo_sha256_final(&h, d);
    for (int k = 0; k < 32; k++) snprintf(hex + 2 * k, 3, "%02x", d[k]);
}

/* The cached listing for key, or NULL. */
static char *cache_read(int rt, const char *key, size_t *len)
{
    struct stat st;
    int fd = fo_sandbox_open_regular(rt, CACHE, &st);
    char *text;

    if (fd < 0) return NULL;
    text = (st.st_size > 65 && (uint64_t)st.st_size <= ENV_MAX + 65) ? fo_malloc((size_t)st.st_size + 1) : NULL;
    if (text && read(fd, text, (size_t)st.st_size) == st.st_size && !memcmp(text, key, 64) &&
        text[64] == '\n') {
        close(fd);
        *len = (size_t)st.st_size - 65;
        memmove(text, text + 65, *len);
        text[*len] = 0;
        return text;
    }
    close(fd);
    fo_free(text);
    return NULL;
}

/* Writes the cache beside itself and renames it into place; best effort. */
static void cache_write(int rt, const char *key, const char *text, size_t len)
{
    char tmp[64];
    int fd;

    snprintf(tmp, sizeof tmp, ".%s.%ld", CACHE, (long)getpid());
    fd = openat(rt, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) return;
    if (fo_write_all(fd, key, 64, 0) < 0 || fo_write_all(fd, "\n", 1, 0) < 0 ||
        fo_write_all(fd, text, len, 0) < 0 || close(fd) < 0 || renameat(rt, tmp, rt, CACHE) < 0)
        unlinkat(rt, tmp, 0);
}

/* Runs the script in a jail (`folio run`, in a child whose stdout is a
   pipe); its output, or NULL with *why filled. */
static char *list_in_jail(size_t *len, char *why, size_t why_len)
{
    const char *argv[64];
    int argc = 0, out[2], err[2], st;
    pid_t pid;
    char *text, *msg;
    size_t mlen;

    argv[argc++] = "run";
    argv[argc++] = "--timeout";
    argv[argc++] = "120";
    argv[argc++] = "--";
    argv[argc++] = "/usr/bin/python3";
    argv[argc++] = "-I";
    argv[argc++] = "-c";
    argv[argc++] = env_script;
    for (size_t k = 0; fo_egress_packages[k] && argc < 63; k++) argv[argc++] = fo_egress_packages[k];
    argv[argc] = NULL;
    if (pipe2(out, O_CLOEXEC) < 0 || pipe2(err, O_CLOEXEC) < 0) {
        snprintf(why, why_len, "can't create a pipe: %s", strerror(errno));
        return NULL;
    }
    fflush(NULL);
    pid = fork();
    if (pid == 0) {
        if (dup2(out[1], 1) < 0 || dup2(err[1], 2) < 0) _exit(5);
        _exit(fo_sandbox_main(argc, (char **)argv, NULL));   /* it only reads them */
    }
    close(out[1]);
    close(err[1]);
    text = pid > 0 ? fo_fd_read(out[0], ENV_MAX, len) : NULL;
    msg = pid > 0 ? fo_fd_read(err[0], 65536, &mlen) : NULL;
    close(out[0]);
    close(err[0]);
    st = 0;
    while (pid > 0 && waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    if (pid < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0 || !text ||
        !strstr(text, SEPARATOR) || text[0] != '{') {
        size_t n = msg ? strlen(msg) : 0;
        while (n && msg[n - 1] == '\n') msg[--n] = 0;
        snprintf(why, why_len, "the listing's jail failed%s%s", n ? ": " : "", n ? msg : "");
        fo_free(text);
        fo_free(msg);
        return NULL;
    }
    fo_free(msg);
    return text;
}

char *fo_env_listing(int refresh, size_t *len, char *why, size_t why_len)
{
    fo_session_error err;
    char key[65], *text = NULL;
    int rt = fo_session_runtime(&err);

    fingerprint(key);
    if (rt >= 0 && !refresh) text = cache_read(rt, key, len);
    if (!text) {
        text = list_in_jail(len, why, why_len);
        if (text && rt >= 0) cache_write(rt, key, text, *len);
    }
    if (rt >= 0) close(rt);
    return text;
}

static void env_usage(FILE *f)
{
    fputs("usage: folio env [--json] [--refresh]\n"
          "Lists what a cell can import: every package of the jail's Python with its\n"
          "version (read inside a jail), the interpreter's version, node and npm, and\n"
          "what --net packages lets a run or session install (into /work, never the\n"
          "host). Cached until the system's packages change; --refresh lists anew.\n"
          "  --json     one JSON object: python, node, npm, packages [{name, version,\n"
          "             imports}], install\n", f);
}

int fo_env_main(int argc, char **argv)
{
    int json = 0, refresh = 0;
    char why[1024] = "", *text, *sep;
    size_t len;

    for (int k = 1; k < argc; k++) {
        if (!strcmp(argv[k], "--json"))
            json = 1;
        else if (!strcmp(argv[k], "--refresh")) refresh = 1;
        else if (!strcmp(argv[k], "--help") || !strcmp(argv[k], "-h")) {
            env_usage(stdout);
            return 0;
        } else return fo_usage_error("env", "unknown option %s", argv[k]);
    }
    text = fo_env_listing(refresh, &len, why, sizeof why);
    if (!text) {
        fprintf(stderr, "folio: env: %s\n  (the listing runs /usr/bin/python3 in a jail, as "
                        "`folio run` does; check that `folio run -- /usr/bin/python3 -V` works)\n", why);
        return 5;
    }
    sep = strstr(text, SEPARATOR);
    *sep = 0;
    fputs(json ? text : sep + strlen(SEPARATOR), stdout);
    if (json) fputc('\n', stdout);
    fo_free(text);
    return fflush(stdout) == 0 ? 0 : 5;
}
