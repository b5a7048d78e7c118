"""report.html: report.md as one self-contained HTML page (the charts inside as data: URIs,
the tables as HTML tables, a style that prints to PDF), and the appendix likewise. A small
converter for the Markdown the report modules write, not for Markdown at large: headings,
pipe tables, lists ("- ", nested by two spaces), paragraphs, fenced code, and inline code,
bold, images and links."""
import base64
import html
import os
import re

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
# The report's own files: their links go to the HTML twin.
TWINS = {"report.md": "report.html", "report-appendix.md": "report-appendix.html"}

STYLE = """
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1b1f24;
       max-width: 1200px; margin: 1.5em auto; padding: 0 1em; }
h1, h2, h3, h4 { line-height: 1.25; margin: 1.2em 0 0.5em; }
h2 { border-bottom: 1px solid #d0d7de; padding-bottom: 0.2em; }
table { border-collapse: collapse; margin: 0.6em 0; font-size: 12.5px; }
th, td { border: 1px solid #d0d7de; padding: 3px 7px; vertical-align: top; }
th { background: #f3f5f7; }
td.r, th.r { text-align: right; white-space: nowrap; }
tr:nth-child(even) td { background: #fafbfc; }
code { font: 12px ui-monospace, SFMono-Regular, Menlo, monospace; background: #f3f5f7; padding: 0 3px;
       word-break: break-all; }
pre { background: #f3f5f7; padding: 0.6em; overflow-x: auto; }
img { max-width: 100%; height: auto; display: block; margin: 0.5em 0; }
.wide { overflow-x: auto; }
@page { size: A4; margin: 12mm; }
@media print {
  body { max-width: none; margin: 0; font-size: 11px; }
  table { font-size: 9.5px; }
  .wide { overflow: visible; }
  h1, h2, h3, h4 { page-break-after: avoid; }
  tr, img, pre { page-break-inside: avoid; }
  thead { display: table-header-group; }
  a { color: inherit; text-decoration: none; }
}
"""

_INLINE = re.compile(r"`([^`]+)`|!\[([^\]]*)\]\(([^)\s]+)\)|\[([^\]]+)\]\(([^)\s]+)\)|\*\*(.+?)\*\*")


def data_uri(path: str) -> str:
    """The PNG at PATH as a data: URI; "" when it is missing or not a PNG."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return ""
    if not data.startswith(PNG_MAGIC):
        return ""
    return "data:image/png;base64," + base64.b64encode(data).decode("ascii")


def _href(url: str) -> str:
    name, sep, frag = url.partition("#")
    return TWINS.get(name, name) + sep + frag


def inline(text: str, base: str) -> str:
    """Inline Markdown to HTML; everything else escaped. Images from BASE embedded."""
    out, at = [], 0
    for m in _INLINE.finditer(text):
        out.append(html.escape(text[at:m.start()]))
        code, alt, src, label, url, bold = m.groups()
        if code is not None:
            out.append(f"<code>{html.escape(code)}</code>")
        elif src is not None:
            uri = data_uri(os.path.join(base, src))
            out.append(f'<img src="{uri}" alt="{html.escape(alt)}">' if uri
                       else f"<em>(chart {html.escape(alt)} missing)</em>")
        elif url is not None:
            out.append(f'<a href="{html.escape(_href(url))}">{inline(label, base)}</a>')
        else:
            out.append(f"<strong>{inline(bold, base)}</strong>")
        at = m.end()
    out.append(html.escape(text[at:]))
    return "".join(out)


def split_row(line: str) -> list[str]:
    """The cells of a pipe-table line (the report's cells hold no pipe: report_fmt.cell)."""
    s = line.strip()
    if s.startswith("|"):
        s = s[1:]
    if s.endswith("|"):
        s = s[:-1]
    return [c.strip() for c in s.split("|")]


def table(lines: list[str], base: str) -> str:
    head = split_row(lines[0])
    rule = split_row(lines[1]) if len(lines) > 1 and set(lines[1]) <= set("|-: ") else []
    right = [c.endswith(":") for c in rule]
    body = lines[2:] if rule else lines[1:]

    def cells(row, tag):
        return "".join(f'<{tag}{" class=r" if i < len(right) and right[i] else ""}>{inline(c, base)}</{tag}>'
                       for i, c in enumerate(row))
    rows = "".join(f"<tr>{cells(split_row(ln), 'td')}</tr>\n" for ln in body)
    return (f'<div class="wide"><table>\n<thead><tr>{cells(head, "th")}</tr></thead>\n'
            f"<tbody>\n{rows}</tbody></table></div>")


def items(lines: list[str], base: str) -> str:
    """A list; an item indented by two more spaces than its parent is nested in it."""
    out, depth = [], -1
    for ln in lines:
        d = (len(ln) - len(ln.lstrip(" "))) // 2
        text = inline(ln.strip()[2:], base)
        if d > depth:
            out += ["<ul>"] * (d - depth)
        else:
            out.append("</li>")
            while depth > d:
                out.append("</ul></li>")
                depth -= 1
        out.append(f"<li>{text}")
        depth = d
    out.append("</li>")
    while depth > 0:
        out.append("</ul></li>")
        depth -= 1
    return "".join(out) + "</ul>"


def _slug(text: str, used: set) -> str:
    s = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "section"
    base, n = s, 2
    while s in used:
        s, n = f"{base}-{n}", n + 1
    used.add(s)
    return s


def _is_item(ln: str) -> bool:
    return ln.lstrip(" ").startswith("- ")


def to_html(md: str, base: str, title: str = "peakbench report") -> str:
    """The Markdown text MD as a whole HTML page; images are read from the folder BASE."""
    lines, out, used, i = md.split("\n"), [], set(), 0
    while i < len(lines):
        ln = lines[i]
        if not ln.strip():
            i += 1
        elif ln.startswith("```"):
            j = i + 1
            while j < len(lines) and not lines[j].startswith("```"):
                j += 1
            out.append("<pre><code>" + html.escape("\n".join(lines[i + 1:j])) + "</code></pre>")
            i = j + 1
        elif m := re.match(r"(#{1,6}) (.*)", ln):
            n, text = len(m.group(1)), m.group(2).strip()
            out.append(f'<h{n} id="{_slug(text, used)}">{inline(text, base)}</h{n}>')
            i += 1
        elif ln.startswith("|"):
            j = i
            while j < len(lines) and lines[j].startswith("|"):
                j += 1
            out.append(table(lines[i:j], base))
            i = j
        elif _is_item(ln):
            j = i
            while j < len(lines) and _is_item(lines[j]):
                j += 1
            out.append(items(lines[i:j], base))
            i = j
        else:
            j = i
            while j < len(lines) and lines[j].strip() and not (
                    lines[j].startswith(("|", "#", "```")) or _is_item(lines[j])):
                j += 1
            out.append("<p>" + "\n".join(inline(x.strip(), base) for x in lines[i:j]) + "</p>")
            i = j
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            f"<title>{html.escape(title)}</title>\n"
            f"<style>{STYLE}</style>\n</head>\n<body>\n" + "\n".join(out) + "\n</body>\n</html>\n")


def write(out_dir: str, docs: dict) -> None:
    """{file name: Markdown lines} as HTML files in OUT_DIR."""
    for name, lines in docs.items():
        text = "\n".join(lines)
        title = next((ln[2:].strip() for ln in lines if ln.startswith("# ")), "peakbench report")
        tmp = os.path.join(out_dir, name + ".tmp")
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(to_html(text, out_dir, title))
        os.replace(tmp, os.path.join(out_dir, name))
