"""HTML pieces every page of negkit is built from: one self-contained page (inline CSS and SVG, no script, nothing
fetched), Markdown tables turned into HTML, figures. ``report.html`` (:mod:`negkit.commands.report`), the compare
and leaderboard pages and the benchmarks' own pages use them.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Sequence

from negkit.kit.view import Figure

_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:2rem auto;max-width:1180px;padding:0 1rem;
color:#222;line-height:1.45}
h1{font-size:1.6rem;margin-bottom:.2rem}h2{border-bottom:2px solid #4e79a7;padding-bottom:.2rem;margin-top:2.4rem}
h3{margin-top:1.6rem}.meta{color:#555;margin-top:0}
table{border-collapse:collapse;margin:.6rem 0 1rem;font-size:.86rem;font-variant-numeric:tabular-nums;
display:block;max-width:100%;overflow-x:auto}
th,td{border:1px solid #d0d7de;padding:.25rem .5rem;text-align:right;vertical-align:top}
th{background:#f3f5f8}td:first-child,th:first-child,td.t{text-align:left}
.ci{color:#6a737d;font-size:.8em;display:inline-block}.sig{color:#b3261e;font-weight:600}
.figures{display:flex;flex-wrap:wrap;gap:1rem}
figure{margin:0;border:1px solid #e1e4e8;border-radius:6px;padding:.5rem;background:#fff;max-width:100%}
figure svg{max-width:100%;height:auto}figcaption{font-size:.85rem;color:#444;margin-top:.3rem}
.note{background:#fff8e1;border-left:4px solid #edc948;padding:.4rem .8rem}
pre{background:#f6f8fa;padding:.6rem;overflow-x:auto}code{font-size:.9em}
"""


# -- Markdown (the subset negkit's reports use) -> HTML ----------------------------------------------------


def _inline(text: str) -> str:
    text = html.escape(text, quote=False)
    text = re.sub(r"`([^`]+)`", r"<code>\1</code>", text)
    return re.sub(r"\*\*([^*]+)\*\*", r"<strong>\1</strong>", text)


def _cell(text: str, tag: str) -> str:
    text = text.strip().replace("\\|", "|")
    match = re.fullmatch(r"(.*?) (\[[^\]]*\])((?: p=[0-9.]+)?)( \*)?", text)
    if tag == "td" and match:
        significant = ' <span class="sig">*</span>' if match.group(4) else ""
        body = (
            f'{_inline(match.group(1))} <span class="ci">{_inline(match.group(2) + match.group(3))}</span>{significant}'
        )
    else:
        body = _inline(text)
    numeric = re.match(r"(\*\*)?[+\-−–]?(\d|\.\d|–$)", text)  # a bold number (a best value) too
    return f"<{tag}>{body}</{tag}>" if numeric or tag == "th" else f'<{tag} class="t">{body}</{tag}>'


def _split_row(line: str) -> list[str]:
    return re.split(r"(?<!\\)\|", line.strip().strip("|"))


def markdown_to_html(text: str) -> str:
    """Headings, paragraphs, code blocks and pipe tables (negkit's generated Markdown) as HTML."""
    out: list[str] = []
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        line = lines[index]
        if line.startswith("```"):
            end = next((i for i in range(index + 1, len(lines)) if lines[i].startswith("```")), len(lines))
            out.append(f"<pre><code>{html.escape(chr(10).join(lines[index + 1 : end]))}</code></pre>")
            index = end + 1
        elif line.startswith("#"):
            level = min(len(line) - len(line.lstrip("#")) + 1, 5)
            out.append(f"<h{level}>{_inline(line.lstrip('#').strip())}</h{level}>")
            index += 1
        elif line.startswith("|"):
            block = []
            while index < len(lines) and lines[index].startswith("|"):
                block.append(lines[index])
                index += 1
            header, body = block[0], [row for row in block[1:] if not re.fullmatch(r"\|[\s:|-]*", row)]
            rows = ["<tr>" + "".join(_cell(c, "th") for c in _split_row(header)) + "</tr>"]
            rows += ["<tr>" + "".join(_cell(c, "td") for c in _split_row(row)) + "</tr>" for row in body]
            out.append("<table>" + "".join(rows) + "</table>")
        elif line.strip():
            block = []
            while index < len(lines) and lines[index].strip() and not lines[index].startswith(("#", "|", "```")):
                block.append(lines[index].strip())
                index += 1
            out.append(f"<p>{_inline(' '.join(block))}</p>")
        else:
            index += 1
    return "\n".join(out)


# -- page assembly ----------------------------------------------------------------------------------------


def page(title: str, body: Iterable[str]) -> str:
    """A complete HTML document with the inline style sheet."""
    return (
        f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta name="viewport" content="width=device-width, initial-scale=1">\n<title>{html.escape(title)}</title>\n'
        f"<style>{_CSS}</style>\n</head>\n<body>\n" + "\n".join(body) + "\n</body>\n</html>\n"
    )


def figures_html(figures: Sequence[Figure]) -> str:
    """Figures side by side, each with its caption."""
    items = [f"<figure>{svg}<figcaption>{html.escape(caption)}</figcaption></figure>" for caption, svg in figures]
    return '<div class="figures">' + "\n".join(items) + "</div>"


def no_plots() -> str:
    return '<p class="note">Figures need matplotlib: <code>pip install negkit[report]</code>.</p>'
