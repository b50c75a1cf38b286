# test_lxw_zip.py — libxlsxwriter's parts deflated by libdeflate (cli/lxw_zip.c):
# both engines carry the minizip entry points that take the deflating over;
# a workbook holds exactly the parts, byte for byte, that minizip's own zlib
# deflate gives (FOLIO_LXW_ZIP=zlib), every CRC checks, and the deflated
# bytes are libdeflate's, not zlib's; a part bigger than what is held (a big
# worksheet through libxlsxwriter's own writer) streams through zlib and is
# whole; the same spec gives the same bytes twice.
import io
import json
import os
import pathlib
import shutil
import struct
import subprocess
import zipfile
import zlib

import pytest

from conftest import FOLIO, SAMPLES, assert_defines, traced_env

ENGINES = [pathlib.Path(FOLIO).parent / n for n in ("folio-engine", "folio-serve")]
ENTRY_POINTS = ("zipOpenNewFileInZip4_64", "zipWriteInFileInZip", "zipCloseFileInZip")


def render(spec, out, zlib_mode=False):
    env = dict(os.environ)
    env.pop("FOLIO_LXW_ZIP", None)
    if zlib_mode:
        env["FOLIO_LXW_ZIP"] = "zlib"
    p = subprocess.run([FOLIO, "render", str(spec), "-o", str(out)], capture_output=True, text=True, env=env,
                       timeout=300)
    assert p.returncode == 0, p.stderr
    return out.read_bytes()


def raw_entries(data):
    """{name: (method, deflated bytes)} read from the local headers."""
    z = zipfile.ZipFile(io.BytesIO(data))
    out = {}
    for info in z.infolist():
        h = data[info.header_offset:info.header_offset + 30]
        n, m = struct.unpack("<HH", h[26:30])
        start = info.header_offset + 30 + n + m
        out[info.filename] = (info.compress_type, data[start:start + info.compress_size])
    return out


def zlib_deflate(raw):
    c = zlib.compressobj(6, zlib.DEFLATED, -15, 8, zlib.Z_DEFAULT_STRATEGY)
    return c.compress(raw) + c.flush()


@pytest.mark.parametrize("engine", ENGINES, ids=lambda p: p.name)
def test_engines_define_minizips_entry_points(engine):
    assert_defines(engine, ENTRY_POINTS)


@pytest.mark.parametrize("sample", ["sales", "pnl", "survey", "world"])
def test_same_parts_as_minizips_zlib_deflated_by_libdeflate(tmp_path, sample):
    spec = SAMPLES / sample / f"{sample}.json"
    ours = render(spec, tmp_path / "ours.xlsx")
    theirs = render(spec, tmp_path / "zlib.xlsx", zlib_mode=True)
    a, b = zipfile.ZipFile(io.BytesIO(ours)), zipfile.ZipFile(io.BytesIO(theirs))
    assert a.testzip() is None and b.testzip() is None
    assert a.namelist() == b.namelist()
    for name in a.namelist():
        assert a.read(name) == b.read(name), name
    # FOLIO_LXW_ZIP=zlib is minizip's own deflate, byte for byte zlib's
    raw_b = raw_entries(theirs)
    for name in b.namelist():
        method, packed = raw_b[name]
        assert method == zipfile.ZIP_DEFLATED and packed == zlib_deflate(b.read(name)), name
    # by default the parts of any size are libdeflate's, not zlib's
    raw_a = raw_entries(ours)
    big = [n for n in a.namelist() if len(a.read(n)) > 2000]
    assert big
    for name in big:
        method, packed = raw_a[name]
        assert method == zipfile.ZIP_DEFLATED
        assert packed != zlib_deflate(a.read(name)), f"{name} is still zlib's"
        assert zlib.decompress(packed, -15) == a.read(name)
    # and readers see the same workbook
    import openpyxl
    wa = openpyxl.load_workbook(tmp_path / "ours.xlsx")
    wb = openpyxl.load_workbook(tmp_path / "zlib.xlsx")
    assert wa.sheetnames == wb.sheetnames
    for ws in wa.worksheets:
        assert [[c.value for c in r] for r in ws.iter_rows()] == \
               [[c.value for c in r] for r in wb[ws.title].iter_rows()]


def test_same_spec_same_bytes(tmp_path):
    spec = SAMPLES / "sales" / "sales.json"
    assert render(spec, tmp_path / "a.xlsx") == render(spec, tmp_path / "b.xlsx")


def test_a_part_past_what_is_held_streams_whole(tmp_path):
    """A worksheet through libxlsxwriter's own writer (a formula column keeps
    it there) whose XML passes 4 MiB: deflated as it comes, every row read."""
    rows = [[i, f"name {i % 977}", i * 1.5, {"formula": "=1+1", "value": 2} if i == 0 else i]
            for i in range(60000)]
    spec = tmp_path / "big.json"
    spec.write_text(json.dumps({"folio": 1, "data": {"t": {
        "columns": [{"name": "id", "type": "number"}, {"name": "name", "type": "text"},
                    {"name": "amount", "type": "number"}, {"name": "g", "type": "number"}],
        "rows": rows}}, "blocks": [{"type": "table", "data": "t"}]}))
    ours = render(spec, tmp_path / "big.xlsx")
    theirs = render(spec, tmp_path / "big-zlib.xlsx", zlib_mode=True)
    a, b = zipfile.ZipFile(io.BytesIO(ours)), zipfile.ZipFile(io.BytesIO(theirs))
    assert a.testzip() is None
    sheets = [n for n in a.namelist() if n.startswith("xl/worksheets/sheet")]
    assert max(len(a.read(n)) for n in sheets) > 4 << 20
    for name in a.namelist():
        assert a.read(name) == b.read(name), name
    import openpyxl
    ws = openpyxl.load_workbook(tmp_path / "big.xlsx", read_only=True).worksheets[0]
    ids = [r[0] for r in ws.iter_rows(min_row=2, values_only=True) if isinstance(r[0], (int, float))]
    assert ids[:3] == [0, 1, 2] and ids[-1] == 59999 and len(ids) == 60000
    assert render(spec, tmp_path / "again.xlsx") == ours


def render_file_mode(spec, out):
    """minizip's own stdio file for the archive (FOLIO_LXW_ZIP=file), the
    parts still deflated by libdeflate."""
    env = dict(os.environ)
    env["FOLIO_LXW_ZIP"] = "file"
    p = subprocess.run([FOLIO, "render", str(spec), "-o", str(out)], capture_output=True, text=True, env=env,
                       timeout=300)
    assert p.returncode == 0, p.stderr
    return out.read_bytes()


@pytest.mark.parametrize("sample", ["sales", "pnl", "survey", "world"])
def test_the_archive_held_in_memory_is_minizips_file_byte_for_byte(tmp_path, sample):
    spec = SAMPLES / sample / f"{sample}.json"
    ours = render(spec, tmp_path / "mem.xlsx")
    assert ours == render_file_mode(spec, tmp_path / "file.xlsx")
    assert zipfile.ZipFile(io.BytesIO(ours)).testzip() is None


@pytest.mark.skipif(not shutil.which("strace"), reason="strace is not installed")
def test_a_small_archive_is_written_in_one_write(tmp_path):
    """minizip's stdio file wrote a small workbook in some 70 system calls (a
    write per header, part and central entry, two seeks per part); held in
    memory it is one write (the staged file's bookkeeping aside)."""
    spec = SAMPLES / "sales" / "sales.json"

    def calls(mode):
        log = tmp_path / f"{mode}.st"
        env = traced_env()
        env.pop("FOLIO_LXW_ZIP", None)
        if mode:
            env["FOLIO_LXW_ZIP"] = mode
        p = subprocess.run(["strace", "-f", "-qq", "-e", "trace=write,pwrite64,lseek", "-o", str(log),
                            FOLIO, "render", str(spec), "-o", str(tmp_path / f"{mode or 'mem'}.xlsx"), "--quiet"],
                           capture_output=True, text=True, env=env, timeout=120)
        assert p.returncode == 0, p.stderr
        n = {"write": 0, "lseek": 0}
        for line in log.read_text().splitlines():
            call = line.split(None, 1)[-1]
            name = call.split("(", 1)[0]
            if name in ("write", "pwrite64") and not call.startswith("write(2,"):
                n["write"] += 1
            elif name == "lseek":
                n["lseek"] += 1
        return n

    mem, disk = calls(""), calls("file")
    # a write per header and part, two seeks per part; the inputs' reads seek too
    assert disk["write"] >= 20 and disk["lseek"] >= mem["lseek"] + 20, (mem, disk)
    # the archive's one write, and the ceiling's watchdog told to stop
    assert mem["write"] <= 2, mem
    assert (tmp_path / "mem.xlsx").read_bytes() == (tmp_path / "file.xlsx").read_bytes()


def test_an_archive_past_what_memory_holds_goes_on_in_its_file(tmp_path):
    """Past 16 MiB the archive goes to its file and the rest is written there
    at its offsets (the parts' headers patched in place): the same bytes as
    minizip's own file, every entry whole."""
    import base64
    import random
    rnd = random.Random(7)
    noise = base64.b64encode(rnd.randbytes(45 * 330000)).decode()   # 60 characters a row
    csv = tmp_path / "noise.csv"
    csv.write_text("a,b\n" + "".join(f"{noise[k:k + 40]},{noise[k + 40:k + 60]}\n"
                                      for k in range(0, len(noise), 60)))
    spec = tmp_path / "noise.json"
    spec.write_text(json.dumps({"folio": 1, "data": {"t": {"csv": "noise.csv"}},
                                "blocks": [{"type": "table", "data": "t"}]}))
    ours = render(spec, tmp_path / "mem.xlsx")
    assert len(ours) > 16 << 20
    assert ours == render_file_mode(spec, tmp_path / "file.xlsx")
    assert zipfile.ZipFile(io.BytesIO(ours)).testzip() is None
