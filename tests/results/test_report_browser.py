"""report.html in a real browser (issue 26, item 5): headless Chromium renders the recorded
tiny run's report.html (a chart PNG inside) to a screenshot, parses it (--dump-dom: the
same images and tables) and prints it to PDF. One launch does all three (Chromium's headless
mode takes the three commands together: a launch costs about 3 s under ctest's load); a
browser that leaves one undone (an older headless) is launched again for it. Without
Chromium: exit 77 (ctest SKIP_RETURN_CODE) with the reason; scripts/deps.sh does not
install it by itself."""
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import unittest
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_report_html import PNG_MAGIC, parse, tiny_report  # noqa: E402

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
WIDTH, HEIGHT = 1200, 3000
TIMEOUT_S = 180


def browser() -> str:
    return next((p for p in map(shutil.which, BROWSERS) if p), "")


def png_pixels(path: str) -> tuple[int, int, bytes]:
    """(width, height, the decompressed scanlines) of a PNG, by its chunks."""
    with open(path, "rb") as f:
        data = f.read()
    if not data.startswith(PNG_MAGIC):
        raise ValueError(f"{path}: not a PNG")
    at, idat, size = 8, b"", (0, 0)
    while at < len(data):
        n, kind = struct.unpack(">I4s", data[at:at + 8])
        body = data[at + 8:at + 8 + n]
        if kind == b"IHDR":
            size = struct.unpack(">II", body[:8])
        elif kind == b"IDAT":
            idat += body
        at += 12 + n
    return size[0], size[1], zlib.decompress(idat)


class Browser(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.exe = browser()
        cls.tmp = tempfile.mkdtemp()
        cls.out = tiny_report(cls.tmp)
        cls.url = "file://" + os.path.join(cls.out, "report.html")
        # the browser's profile in the test's folder, not the user's home
        cls.flags = ["--headless", "--disable-gpu", "--no-sandbox", f"--user-data-dir={cls.tmp}/profile"]
        cls.shot = os.path.join(cls.tmp, "shot.png")
        cls.pdf = os.path.join(cls.tmp, "report.pdf")
        cls.shot_args = [f"--screenshot={cls.shot}", f"--window-size={WIDTH},{HEIGHT}"]
        cls.pdf_args = [f"--print-to-pdf={cls.pdf}", "--no-pdf-header-footer"]
        cls.both = subprocess.run([cls.exe] + cls.flags + cls.shot_args + cls.pdf_args + ["--dump-dom", cls.url],
                                  capture_output=True, text=True, timeout=TIMEOUT_S, check=False)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def run_browser(self, *args) -> subprocess.CompletedProcess:
        r = subprocess.run([self.exe] + self.flags + list(args) + [self.url], capture_output=True, text=True,
                           timeout=TIMEOUT_S, check=False)
        self.assertEqual(r.returncode, 0, r.stderr[-2000:])
        return r

    def made(self, path: str, *args) -> str:
        """PATH as the shared launch left it, else from a launch of its own with ARGS."""
        self.assertEqual(self.both.returncode, 0, self.both.stderr[-2000:])
        if not os.path.isfile(path):
            self.run_browser(*args)
        self.assertTrue(os.path.isfile(path))
        return path

    def test_screenshot_drawn(self):
        shot = self.made(self.shot, *self.shot_args)
        w, h, pixels = png_pixels(shot)
        self.assertEqual((w, h), (WIDTH, HEIGHT))
        # a page of text, tables and a chart, not a blank or single-colour screen
        self.assertGreater(len(set(pixels[::7])), 16)
        self.assertGreater(os.path.getsize(shot), 20_000)

    def test_dom_holds_the_images_and_tables(self):
        self.assertEqual(self.both.returncode, 0, self.both.stderr[-2000:])
        text = self.both.stdout if "<html" in self.both.stdout else self.run_browser("--dump-dom").stdout
        dom = parse(text)
        with open(os.path.join(self.out, "report.html"), encoding="utf-8") as f:
            ours = parse(f.read())
        self.assertTrue(ours.imgs)
        self.assertEqual(len(dom.imgs), len(ours.imgs))
        self.assertTrue(all(src.startswith("data:image/png;base64,") for src in dom.imgs))
        self.assertEqual(dom.tables, ours.tables)

    def test_prints_to_pdf(self):
        pdf = self.made(self.pdf, *self.pdf_args)
        with open(pdf, "rb") as f:
            head = f.read(5)
        self.assertEqual(head, b"%PDF-")
        self.assertGreater(os.path.getsize(pdf), 20_000)


if __name__ == "__main__":
    if not browser():
        print("SKIP: chromium not installed (Debian: apt install chromium; Fedora: dnf install chromium)")
        sys.exit(77)
    unittest.main()
