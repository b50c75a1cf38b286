# test_pdf_long.py — long tables in PDF (issue 39): past the first 100
# pages each finished page's contents are compressed at once (libharu holds
# every page until it saves), what is drawn on a page later (the footer's
# "Page N of M") goes to a second content stream, and a table whose pages
# will pass the output ceiling is refused as soon as that is clear, with
# exit 3 and nothing written — not after laying out every page.
# Read back with pdfinfo, pdftotext and qpdf; memory by the child's
# ru_maxrss (a bound, not a time).
import json
import re
import subprocess
import sys

from conftest import FOLIO, run_folio, write_spec

# Runs a command and prints its exit code and peak RSS (KiB) on the last
# line: RUSAGE_CHILDREN of this wrapper is that one command alone.
RUSAGE = """
import resource, subprocess, sys
p = subprocess.run(sys.argv[1:], capture_output=True, text=True)
sys.stderr.write(p.stderr)
print(p.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""


def table_spec(tmp_path, rows, name="t"):
    csv = tmp_path / f"{name}.csv"
    with open(csv, "w") as f:
        f.write("id,region,amount,qty\n")
        regions = ("North", "South", "East", "West")
        f.writelines(f"{i},{regions[i % 4]},{(i * 7919) % 1000003 / 100:.2f},{i % 97 + 1}\n"
                     for i in range(rows))
    spec = {"folio": 1, "title": f"{rows} rows", "data": {"t": {"csv": csv.name}},
            "blocks": [{"type": "table", "data": "t"}]}
    return write_spec(tmp_path, spec, f"{name}.json")


def test_a_million_rows_are_refused_early_with_nothing_left(tmp_path):
    spec = table_spec(tmp_path, 1_000_000)
    out = tmp_path / "out"
    out.mkdir()
    p = subprocess.run([sys.executable, "-c", RUSAGE, FOLIO, "render", str(spec), "-o",
                        str(out / "big.pdf")], capture_output=True, text=True, timeout=600)
    code, rss_kib = map(int, p.stdout.split()[-2:])
    assert code == 3, p.stderr
    assert "output ceiling of 31457280 bytes" in p.stderr and "nothing written" in p.stderr
    assert "--max-bytes" in p.stderr
    # ~24,400 pages in all: refused from an estimate after a few hundred, not after
    # laying out all of them (it was: 9.8 s, 431 MB, a libharu error, then the ceiling)
    stopped = int(re.search(r"stopped at page (\d+)", p.stderr).group(1))
    assert stopped < 1000, p.stderr
    assert rss_kib < 64 * 1024, f"peak RSS {rss_kib} KiB"
    assert list(out.iterdir()) == []


def test_a_low_ceiling_stops_a_long_table_early(tmp_path):
    spec = table_spec(tmp_path, 30_000)
    out = tmp_path / "out"
    out.mkdir()
    p = run_folio("render", spec, "-o", out / "t.pdf", "--max-bytes", "300000", check=3)
    stopped = int(re.search(r"stopped at page (\d+)", p.stderr).group(1))
    assert stopped < 250, p.stderr          # of ~730 pages
    assert list(out.iterdir()) == []


def test_a_long_table_is_whole_with_its_footers(tmp_path):
    spec = table_spec(tmp_path, 6_000)
    a, b = tmp_path / "a.pdf", tmp_path / "b.pdf"
    run_folio("render", spec, "-o", a, "--quiet", check=0)
    run_folio("render", spec, "-o", b, "--quiet", check=0)
    assert a.read_bytes() == b.read_bytes()
    subprocess.run(["qpdf", "--check", str(a)], check=True, capture_output=True)
    info = subprocess.run(["pdfinfo", str(a)], capture_output=True, text=True, check=True).stdout
    pages = int(re.search(r"Pages:\s+(\d+)", info).group(1))
    assert pages > 120                       # past the 100 pages kept as drawn
    text = subprocess.run(["pdftotext", "-layout", str(a), "-"], capture_output=True, text=True,
                          check=True).stdout.split("\f")
    for n in (1, 100, 101, 102, pages):      # footers on kept and compressed pages
        assert f"Page {n} of {pages}" in text[n - 1], n
    assert re.search(r"\b5999\s+West\b", text[pages - 1])
    ids = [int(m) for page in text for m in re.findall(r"^\s*(\d+)\s+(?:North|South|East|West)\b",
                                                        page, re.M)]
    assert ids == list(range(6000))
