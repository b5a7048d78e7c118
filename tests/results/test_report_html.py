"""report.html (issue 26, item 5): report.md as one self-contained page. On the recorded tiny
run (tests/fixtures/results/tiny) with a chart present: every <img> is a data: URI that
decodes to a PNG, every table row has its header's cell count, the appendix links go to
its HTML twin; and the converter (report_html) on the Markdown the report writes."""
import base64
import html.parser
import os
import shutil
import struct
import sys
import tempfile
import unittest
import zlib

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
FIX = os.path.join(REPO, "tests", "fixtures", "results", "tiny")
sys.path.insert(0, os.path.join(REPO, "scripts"))

from peakresults.report import report, report_html  # noqa: E402
from peakresults.report.finish import finish  # noqa: E402

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def tiny_png(width: int = 64, height: int = 48) -> bytes:
    """A small RGB gradient as PNG (standard library only)."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    # each scanline: filter byte 0, then RGB per pixel
    raw = b"".join(b"\0" + b"".join(bytes((x * 4 % 256, y * 5 % 256, 128)) for x in range(width))
                   for y in range(height))
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return PNG_MAGIC + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")


class StubCharts:
    """The charts a run drew, when gnuplot is not here: the PNG files present in charts/."""

    def __init__(self, out: str):
        self.dir, self.note = os.path.join(out, "charts"), ""

    def have(self, name: str) -> bool:
        return os.path.isfile(os.path.join(self.dir, name + ".png"))


def tiny_report(tmp: str) -> str:
    """The recorded tiny run finished into TMP/run, with at least one chart PNG: gnuplot's
    when installed, else a small PNG standing in for efficiency.png. The folder's path."""
    out = os.path.join(tmp, "run")
    shutil.copytree(FIX, out, ignore=shutil.ignore_patterns("old", "baseline-*.csv"))
    res, c = finish(out, draw=True)
    if not c.drawn:
        with open(os.path.join(out, "charts", "efficiency.png"), "wb") as f:
            f.write(tiny_png())
        report.write(out, res, StubCharts(out))
    return out


class Structure(html.parser.HTMLParser):
    """The page's images, links and tables (each a list of rows, each the count of its cells)."""

    def __init__(self):
        super().__init__()
        self.imgs, self.links, self.tables, self.ids = [], [], [], []
        self.text_p = []
        self._in_p = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if a.get("id"):
            self.ids.append(a["id"])
        if tag == "img":
            self.imgs.append(a.get("src", ""))
        elif tag == "a":
            self.links.append(a.get("href", ""))
        elif tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.tables[-1].append(0)
        elif tag in ("td", "th"):
            self.tables[-1][-1] += 1
        elif tag == "p":
            self._in_p = True
            self.text_p.append("")

    def handle_endtag(self, tag):
        if tag == "p":
            self._in_p = False

    def handle_data(self, data):
        if self._in_p:
            self.text_p[-1] += data


def parse(text: str) -> Structure:
    s = Structure()
    s.feed(text)
    return s


class TinyRunPage(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp()
        cls.out = tiny_report(cls.tmp)
        with open(os.path.join(cls.out, "report.html"), encoding="utf-8") as f:
            cls.html = f.read()
        with open(os.path.join(cls.out, "report.md"), encoding="utf-8") as f:
            cls.md = f.read()
        cls.page = parse(cls.html)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def test_every_image_is_an_embedded_png(self):
        charts = [ln for ln in self.md.splitlines() if ln.startswith("![")]
        self.assertTrue(charts)
        self.assertEqual(len(self.page.imgs), len(charts))
        for src in self.page.imgs:
            self.assertTrue(src.startswith("data:image/png;base64,"), src[:40])
            self.assertTrue(base64.b64decode(src.split(",", 1)[1], validate=True).startswith(PNG_MAGIC))
        self.assertNotIn('src="charts/', self.html)  # nothing outside the file

    def test_every_row_has_the_headers_cells(self):
        self.assertEqual(len(self.page.tables), sum(1 for ln in self.md.splitlines() if ln.startswith("| ---")))
        for t in self.page.tables:
            self.assertGreater(len(t), 1)
            self.assertEqual(set(t), {t[0]}, t)

    def test_no_markdown_left_in_paragraphs(self):
        for p in self.page.text_p:
            self.assertFalse(p.lstrip().startswith(("|", "#", "- ", "![")), p[:80])
            self.assertNotIn("](", p)
            self.assertNotIn("**", p)

    def test_links_go_to_the_html_twin(self):
        self.assertIn("report-appendix.html", self.page.links)
        self.assertNotIn("report-appendix.md", self.page.links)
        self.assertTrue(os.path.isfile(os.path.join(self.out, "report-appendix.html")))
        with open(os.path.join(self.out, "report-appendix.html"), encoding="utf-8") as f:
            app = parse(f.read())
        self.assertIn("report.html", app.links)
        for t in app.tables:
            self.assertEqual(set(t), {t[0]}, t)

    def test_same_content(self):
        self.assertIn('<h2 id="summary">Summary</h2>', self.html)
        self.assertIn("<td>AMD EPYC</td>", self.html)
        self.assertEqual(self.html.count("<h2 "), sum(1 for ln in self.md.splitlines() if ln.startswith("## ")))
        self.assertIn("@media print", self.html)


class Converter(unittest.TestCase):
    def test_escapes_and_inline(self):
        got = report_html.inline("a < b & `x<y` **bold** [t](report.md#s) [c](commands.txt)", "/nowhere")
        self.assertEqual(got, 'a &lt; b &amp; <code>x&lt;y</code> <strong>bold</strong> '
                              '<a href="report.html#s">t</a> <a href="commands.txt">c</a>')

    def test_missing_chart_is_said(self):
        self.assertIn("(chart roofline missing)", report_html.inline("![roofline](charts/roofline.png)", "/nowhere"))

    def test_not_a_png_is_not_embedded(self):
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "x.png"), "wb") as f:
                f.write(b"GIF89a")
            self.assertEqual(report_html.data_uri(os.path.join(d, "x.png")), "")

    def test_nested_list(self):
        page = report_html.to_html("- a:\n  - ours: `x`\n  - tool: `y`\n- b", "/nowhere")
        self.assertIn("<ul><li>a:<ul><li>ours: <code>x</code></li><li>tool: <code>y</code></li></ul></li>"
                      "<li>b</li></ul>", page)

    def test_table_alignment_and_cells(self):
        page = report_html.to_html("| A | B |\n| --- | ---: |\n| x | 1 |\n| y |  |", "/nowhere")
        self.assertIn("<th>A</th><th class=r>B</th>", page)
        self.assertIn("<tr><td>y</td><td class=r></td></tr>", page)
        self.assertEqual(parse(page).tables, [[2, 2, 2]])

    def test_headings_have_unique_ids(self):
        page = parse(report_html.to_html("## Disk\n\n#### seq_read\n\n#### seq_read", "/nowhere"))
        self.assertEqual(page.ids, ["disk", "seq-read", "seq-read-2"])

    def test_paragraph_lines_join_and_code_block(self):
        page = report_html.to_html("one\ntwo\n\n```\n| not a table\n```", "/nowhere")
        self.assertIn("<p>one\ntwo</p>", page)
        self.assertIn("<pre><code>| not a table</code></pre>", page)
        self.assertNotIn("<table", page)

    def test_stub_png_is_a_png(self):
        png = tiny_png(3, 2)
        self.assertTrue(png.startswith(PNG_MAGIC))
        self.assertEqual(struct.unpack(">II", png[16:24]), (3, 2))

if __name__ == "__main__":
    unittest.main()
