# test_pdf_long.py — long tables in PDF (issue 39): past the first 100
# pages each finished page is written to the file and let go (libharu would
# hold every page until it saves), its header and footer ("Page N of M",
# known only at the end) drawn later in a form XObject it invokes; a table
# whose pages will pass the output ceiling is refused as soon as that is
# clear, with exit 3 and nothing written — not after laying out every page.
# Read back with pdfinfo, pdftotext, pdfimages and qpdf; memory by the
# child's ru_maxrss (a bound, not a time).
import json
import os
import pathlib
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


def peak_kib(spec, out):
    """Renders spec to out; the render's peak RSS in KiB, its heap in 4 KiB
    pages (the launcher asks for huge pages, which moves RSS in 2 MiB steps)."""
    env = dict(os.environ, GLIBC_TUNABLES="glibc.malloc.hugetlb=0")
    p = subprocess.run([sys.executable, "-c", RUSAGE, FOLIO, "render", str(spec), "-o", str(out),
                        "--quiet"], capture_output=True, text=True, timeout=600, env=env)
    code, rss_kib = map(int, p.stdout.split()[-2:])
    assert code == 0, p.stderr
    return rss_kib


def page_texts(pdf):
    return subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True,
                          check=True).stdout.split("\f")


def page_count(pdf):
    info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True).stdout
    return int(re.search(r"Pages:\s+(\d+)", info).group(1))


def test_a_long_tables_memory_is_flat(tmp_path):
    small, big = table_spec(tmp_path, 20_000, "small"), table_spec(tmp_path, 120_000, "big")
    small_kib = peak_kib(small, tmp_path / "small.pdf")
    big_kib = peak_kib(big, tmp_path / "big.pdf")
    # six times the rows (~490 and ~2,930 pages): 16 and 35 MiB when every page
    # stayed in memory until the end; now 13.8 and 14.8: what is left of a
    # written page is ~250 bytes (its place in the page tree and the
    # cross-reference table)
    engine = pathlib.Path(FOLIO).with_name("folio-engine").read_bytes()
    if b"AddressSanitizer" not in engine:    # ASan's quarantine holds freed memory on purpose
        assert big_kib <= small_kib + 2 * 1024, (small_kib, big_kib)
        assert big_kib < 32 * 1024, big_kib
    pdf = tmp_path / "big.pdf"
    subprocess.run(["qpdf", "--check", str(pdf)], check=True, capture_output=True)
    pages = page_count(pdf)
    assert pages > 2_500
    text = page_texts(pdf)
    assert f"Page 1 of {pages}" in text[0] and f"Page {pages} of {pages}" in text[pages - 1]
    assert re.search(r"^\s*0\s+North\b", text[0], re.M)
    assert re.search(r"\b119999\s+West\b", text[pages - 1])
    ids = [int(m) for page in text for m in re.findall(r"^\s*(\d+)\s+(?:North|South|East|West)\b",
                                                        page, re.M)]
    assert ids == list(range(120_000))       # first, middle and last rows, none lost or doubled


LOGO = pathlib.Path(__file__).resolve().parents[3] / "samples" / "sales" / "logo.png"


def mixed_spec(tmp_path, sections):
    """A report past 100 pages with what a written page must keep: a table of
    contents linking to every heading, the outline, links, a wide table on
    landscape pages, a chart, and a theme with a dark background, a logo and a
    header and footer in several scripts."""
    (tmp_path / "logo.png").write_bytes(LOGO.read_bytes())
    theme = {"folio_theme": 1, "name": "mix", "logo": "logo.png",
             "header": "{title} · {page}/{pages}", "footer": "Página {page} de {pages} — {date}",
             "colors": {"background": "#101820", "text": "#EEEEEE", "muted": "#AAAAAA"}}
    (tmp_path / "theme.json").write_text(json.dumps(theme, ensure_ascii=False), encoding="utf-8")
    rows = [[i, ["North", "الشمال", "צפון", "北"][i % 4], i * 1.5, f"item {i} नमस्ते"] for i in range(40)]
    blocks = [{"type": "toc"}]
    for s in range(sections):
        blocks += [{"type": "heading", "text": f"Section {s}", "level": 1 if s % 3 == 0 else 2},
                   {"type": "paragraph", "text": f"See [site {s}](https://example.com/{s}). "
                                                 "สวัสดีชาวโลก 你好 😀 שלום مرحبا"},
                   {"type": "table", "data": {"columns": ["id", "region", "amount", "note"], "rows": rows}}]
        if s == sections - 10:
            blocks.append({"type": "table", "data": {
                "columns": [f"column_{k}_long_name" for k in range(12)],
                "rows": [[f"r{i}c{k}" for k in range(12)] for i in range(90)]}})
            blocks.append({"type": "chart", "kind": "column", "title": "Late chart", "x": "m", "y": ["a"],
                           "data": {"columns": ["m", "a"], "rows": [["Jan", 1], ["Feb", 3]]}})
    spec = {"folio": 1, "title": "Report تقرير 报告", "date": "2026-12-07", "blocks": blocks}
    return write_spec(tmp_path, spec, "mixed.json")


def test_pages_written_early_keep_links_outline_header_and_footer(tmp_path):
    spec = mixed_spec(tmp_path, 140)
    a, b = tmp_path / "a.pdf", tmp_path / "b.pdf"
    for out in (a, b):
        run_folio("render", spec, "--theme", tmp_path / "theme.json", "-o", out, "--quiet", check=0)
    assert a.read_bytes() == b.read_bytes()
    subprocess.run(["qpdf", "--check", str(a)], check=True, capture_output=True)
    pages = page_count(a)
    assert pages > 130
    text = page_texts(a)
    for p in range(1, pages + 1):            # header and footer on pages held and written
        assert f"· {p}/{pages}" in text[p - 1] and f"Página {p} de {pages}" in text[p - 1], p
    at = {s: next(i + 1 for i, t in enumerate(text) if re.search(rf"\bsite {s}\b", t)) for s in (0, 139)}
    assert at[139] > 120
    sizes = subprocess.run(["pdfinfo", "-f", "1", "-l", str(pages), str(a)], capture_output=True,
                           text=True, check=True).stdout
    landscape = [int(p) for p, w in re.findall(r"Page\s+(\d+) size:\s+([\d.]+) x", sizes) if float(w) > 800]
    assert landscape and min(landscape) > 101
    assert all("column_0_long_name" in text[p - 1] for p in landscape)
    # the footer stands where it stood on a page drawn on to the end (page 100):
    # centred, so where its page number has as many digits
    boxes = subprocess.run(["pdftotext", "-bbox", "-f", "90", "-l", str(pages), str(a), "-"],
                           capture_output=True, text=True, check=True).stdout.split("<page ")[1:]
    spots = {re.search(r'<word xMin="([\d.]+)" yMin="([\d.]+)"[^>]*>Página<', page).groups()
             for p, page in enumerate(boxes, 90) if p >= 100 and p not in landscape}
    assert len(spots) == 1, spots
    # the logo on every page
    listing = subprocess.run(["pdfimages", "-list", str(a)], capture_output=True, text=True).stdout
    logo_pages = {int(l.split()[0]) for l in listing.splitlines()[2:] if " 240    80 " in l}
    assert logo_pages == set(range(1, pages + 1))
    fonts = subprocess.run(["pdffonts", str(a)], capture_output=True, text=True).stdout.splitlines()[2:]
    assert fonts and all(f.split()[-5:-2] == ["yes", "yes", "yes"] for f in fonts), fonts
    # outline, table of contents and links point at the pages written early
    doc = json.loads(subprocess.run(["qpdf", "--json", str(a)], capture_output=True, check=True).stdout)
    objs = {k[4:]: v.get("value", v.get("stream", {}).get("dict"))
            for k, v in doc["qpdf"][1].items() if k.startswith("obj:")}
    page_ids = [pg["object"] for pg in doc["pages"]]

    def flat(items):
        for o in items:
            yield o
            yield from flat(o["kids"])
    outline = {o["title"]: o["destpageposfrom1"] for o in flat(doc["outlines"])}
    assert outline["Section 139"] == at[139] and outline["Section 0"] == at[0]
    uris, dests = {}, set()
    for i, po in enumerate(page_ids, 1):
        for ref in objs[po].get("/Annots", []):
            d = objs[ref]
            if "/A" in d:
                act = objs[d["/A"]] if isinstance(d["/A"], str) else d["/A"]
                uris[act["/URI"]] = i
            elif "/Dest" in d:
                dest = objs[d["/Dest"]] if isinstance(d["/Dest"], str) else d["/Dest"]
                dests.add(page_ids.index(dest[0]) + 1)
    assert uris["u:https://example.com/139"] == at[139] and uris["u:https://example.com/0"] == at[0]
    assert at[139] in dests                  # the table of contents' link to the last section


def test_a_number_wider_than_its_sampled_column_stays_whole(tmp_path):
    """Column widths come from the first rows; a later number wider than its
    column is set smaller on one line, never broken across lines (it read
    "23 / 31 / 3" for 23313 in a 30,000-row table)."""
    words = "see also for discount customer delivery reorder late naive quote"
    notes = [f"{words} {k}" for k in range(6)]
    rows = [[i, f"item {i}"] + notes for i in range(1, 61)] + \
           [[1234567890 + i, f"late {i}"] + notes for i in range(5)]
    cols = [{"name": "id", "type": "number"}, {"name": "what", "type": "text"}] + \
           [{"name": f"note {k}", "type": "text"} for k in range(6)]
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps({"folio": 1, "data": {"t": {"columns": cols, "rows": rows}},
                                "blocks": [{"type": "table", "data": "t"}]}))
    out = tmp_path / "o.pdf"
    p = subprocess.run([FOLIO, "render", str(spec), "-o", str(out)], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    text = subprocess.run(["pdftotext", "-raw", str(out), "-"], capture_output=True, text=True).stdout
    for i in range(5):
        assert re.search(rf"(?m)^{1234567890 + i} late {i}\b", text), text[-600:]
