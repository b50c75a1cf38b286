# test_chart_kinds.py — every chart kind's native chart, read back from the
# docx's chart parts (render/chartxml) and the xlsx's (libxlsxwriter) with
# the standard library: the chart group element, c:barDir, c:grouping
# (plain and stacked), the doughnut's hole, the line's markers, the series
# a round chart keeps, the axes, and a right-to-left document's reversed
# category axis. The writers take all of it from one row per kind
# (fo_chart_kinds, render/core/model.c), so this pins each row's mapping.
import re
import zipfile
import xml.etree.ElementTree as ET

import pytest

from conftest import run_folio, write_spec

C = "{http://schemas.openxmlformats.org/drawingml/2006/chart}"
A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
# kind: (group element, c:barDir, c:grouping when not stacked, axis ids)
KINDS = {
    "bar": ("barChart", "bar", "clustered", 2),
    "column": ("barChart", "col", "clustered", 2),
    "line": ("lineChart", None, "standard", 2),
    "area": ("areaChart", None, "standard", 2),
    "pie": ("pieChart", None, None, 0),
    "doughnut": ("doughnutChart", None, None, 0),
    "scatter": ("scatterChart", None, None, 2),
}
DATA = {"d": {"columns": ["region", "a", "b", "c"],
              "rows": [["North", 10, 12, 3], ["South", 8, 6, 4], ["East", 5, 7, 2]]},
        "xy": {"columns": [{"name": "x", "type": "number"}, "a", "b", "c"],
               "rows": [[1, 10, 12, 3], [2.5, 8, 6, 4], [4, 5, 7, 2]]}}


def chart(kind, stacked):
    return {"type": "chart", "kind": kind, "data": "xy" if kind == "scatter" else "d",
            "x": "x" if kind == "scatter" else "region", "y": ["a", "b", "c"], "stacked": stacked,
            "title": f"{kind} {'stacked' if stacked else 'plain'}"}


def charts_of(path):
    """{chart title: its c:chartSpace root} of an OOXML package."""
    out = {}
    with zipfile.ZipFile(path) as z:
        for n in z.namelist():
            if re.search(r"/charts/chart\d+\.xml$", n):
                root = ET.fromstring(z.read(n))
                title = "".join(t.text or "" for t in root.find(f"{C}chart/{C}title").iter(f"{A}t"))
                out[title] = root
    return out


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    d = tmp_path_factory.mktemp("kinds")
    out = {}
    for direction in ("ltr", "rtl"):
        spec = {"folio": 1, "dir": direction, "data": DATA,
                "blocks": [chart(k, s) for k in KINDS for s in (False, True)]}
        path = write_spec(d, spec, f"{direction}.json")
        for fmt in ("docx", "xlsx"):
            o = d / f"{direction}.{fmt}"
            run_folio("render", path, "-o", o, "--quiet", check=0)
            out[direction, fmt] = charts_of(o)
    return out


def val(el, tag):
    e = el.find(f"{C}{tag}")
    return None if e is None else e.get("val")


@pytest.mark.parametrize("fmt", ["docx", "xlsx"])
@pytest.mark.parametrize("kind", list(KINDS))
@pytest.mark.parametrize("stacked", [False, True])
def test_group_of_each_kind(rendered, fmt, kind, stacked):
    group, bar_dir, grouping, axes = KINDS[kind]
    root = rendered["ltr", fmt][f"{kind} {'stacked' if stacked else 'plain'}"]
    plot = root.find(f"{C}chart/{C}plotArea")
    groups = [e for e in plot if e.tag.endswith("Chart")]
    assert [g.tag for g in groups] == [C + group]
    g = groups[0]
    assert val(g, "barDir") == bar_dir
    assert val(g, "grouping") == (grouping and ("stacked" if stacked else grouping))
    assert len(g.findall(f"{C}axId")) == axes
    assert len(plot.findall(f"{C}catAx")) == (1 if grouping else 0)
    assert len(plot.findall(f"{C}valAx")) == {"scatter": 2, "pie": 0, "doughnut": 0}.get(kind, 1)
    # a pie shows its first series; a doughnut in xlsx every series, as rings
    nser = 1 if kind == "pie" or (kind == "doughnut" and fmt == "docx") else 3
    assert len(g.findall(f"{C}ser")) == nser
    if fmt == "docx":
        assert val(g, "varyColors") == ("1" if kind in ("pie", "doughnut") else "0")
        assert val(g, "holeSize") == ("55" if kind == "doughnut" else None)
        assert val(g, "marker") == ("1" if kind == "line" else None)
        assert (val(g, "overlap") == "100") == (stacked and kind in ("bar", "column"))


@pytest.mark.parametrize("fmt", ["docx", "xlsx"])
@pytest.mark.parametrize("kind", ["bar", "column", "line", "area"])
def test_category_axis_direction(rendered, fmt, kind):
    """Right to left: column, line and area categories run from the right;
    a bar chart's categories run top down (xlsx: a reversed axis; docx: the
    clustered rows written bottom up, the axis as is) whatever the direction."""
    for direction in ("ltr", "rtl"):
        root = rendered[direction, fmt][f"{kind} plain"]
        orient = root.find(f"{C}chart/{C}plotArea/{C}catAx/{C}scaling/{C}orientation").get("val")
        if kind == "bar":
            want = "maxMin" if fmt == "xlsx" else "minMax"
        else:
            want = "maxMin" if direction == "rtl" else "minMax"
        assert orient == want, (direction, orient)
