# hostile_template.py — building hostile --template packages for the
# template tests (tests/render/*/test_*_template.py): a folio-made document
# with parts replaced or added, entries with any name (zipfile refuses none),
# DTDs, and zip bombs written as raw deflate so that a part of gigabytes
# costs a few megabytes and a second to make.
import os
import struct
import subprocess
import zipfile
import zlib

from conftest import FOLIO

BILLION_LAUGHS = ('<?xml version="1.0"?>\n<!DOCTYPE lolz [<!ENTITY lol "lol">'
                  + "".join('<!ENTITY lol%d "%s">' % (i, ("&lol%d;" % (i - 1) if i > 1 else "&lol;") * 10)
                            for i in range(1, 10))
                  + ']>\n')
XXE = '<?xml version="1.0"?>\n<!DOCTYPE x [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>\n'


def parts_of(path):
    with zipfile.ZipFile(path) as z:
        return {n: z.read(n) for n in z.namelist()}


def write_zip(path, parts):
    """parts: name -> bytes/str, in order; names are written as given."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in parts.items():
            z.writestr(zipfile.ZipInfo(name, (1980, 1, 1, 0, 0, 0)),
                       data.encode() if isinstance(data, str) else data)
    return path


def with_parts(src, dest, changes):
    """A copy of the package src with parts replaced, added (str/bytes) or
    removed (None)."""
    parts = parts_of(src)
    for name, data in changes.items():
        if data is None:
            parts.pop(name, None)
        else:
            parts[name] = data
    return write_zip(dest, parts)


def _deflate(data):
    c = zlib.compressobj(6, zlib.DEFLATED, -15)
    return c.compress(data) + c.flush()


def zip_bomb(path, parts, bomb_name, gib=2.5):
    """Writes parts plus bomb_name, a part of `gib` GiB of zeros (the first
    bytes an XML start tag) stored as about 2.6 MB of raw deflate. Its CRC
    is not computed: a reader that stops at its cap never gets to check it."""
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    mib = b"\0" * (1 << 20)
    head = c.compress(b"<a>" + mib[3:]) + c.flush(zlib.Z_FULL_FLUSH)
    block = c.compress(mib) + c.flush(zlib.Z_FULL_FLUSH)  # the same bytes every MiB after a full flush
    n = int(gib * 1024)
    entries = [(n_, _deflate(d.encode() if isinstance(d, str) else d),
                zlib.crc32(d.encode() if isinstance(d, str) else d),
                len(d.encode() if isinstance(d, str) else d)) for n_, d in parts.items()]
    bomb = head + block * (n - 1) + c.flush()
    entries.append((bomb_name, bomb, 0, n << 20))
    with open(path, "wb") as f:
        central = b""
        for name, comp, crc, size in entries:
            off = f.tell()
            nb = name.encode()
            f.write(struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, 8, 0, 0x21, crc, len(comp), size, len(nb), 0))
            f.write(nb + comp)
            central += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, 8, 0, 0x21, crc, len(comp),
                                   size, len(nb), 0, 0, 0, 0, 0, off) + nb
        start = f.tell()
        f.write(central)
        f.write(struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(entries), len(entries), len(central), start, 0))
    return path


def run_measured(*args, timeout=120):
    """Runs folio; returns (exit code, stderr, peak RSS in MiB of that run).

    Through /usr/bin/time: a process forked from pytest starts with pytest's
    own peak RSS (fork copies it, exec keeps it), which by the end of the
    suite is over 200 MiB; time's child starts small."""
    p = subprocess.run(["/usr/bin/time", "-f", "%M", FOLIO, *map(str, args)], stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, timeout=timeout)
    err = p.stderr.decode()
    lines = err.rstrip().splitlines()
    return p.returncode, "\n".join(lines[:-1]), int(lines[-1]) / 1024


def entry_names(path):
    with zipfile.ZipFile(path) as z:
        return z.namelist()


def assert_refused(p, template, out, *words):
    """A refused template: exit 2, a message naming it and each word, no output."""
    assert p.returncode == 2, p.stderr
    assert template.name in p.stderr, p.stderr
    for w in words:
        assert w in p.stderr, (w, p.stderr)
    assert not out.exists()
    return p.stderr
