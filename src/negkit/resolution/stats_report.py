"""Tables and figures of ``negkit resolution stats``: counts per corpus split (the layout of the data table in the
appendix of Sineva et al. 2021) and negation instances by scope length (their Figures 3-5), as Markdown, SVG,
PNG and one self-contained HTML page.

Input is a :class:`negkit.resolution.corpus_stats.CorpusStatisticsReport` in its :meth:`to_dict` form (plain
JSON), so the report layer depends on nothing above it.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from negkit.io.atomic import atomic_write_bytes, atomic_write_text
from negkit.kit.render import plots
from negkit.kit.render.html import figures_html, markdown_to_html, page
from negkit.kit.render.markdown import markdown_table

HTML_FILE = "index.html"
#: Display names of the corpora in tables and figure titles.
CORPUS_NAMES = {
    "cd-sco": "CD-SCO",
    "cd-neg": "CD-neg",
    "bioscope": "BioScope abstracts",
    "sfu": "SFU Review",
    "norec": "NoReC_neg",
}
_SPLIT_HEADERS = (
    "corpus",
    "split",
    "documents",
    "sentences",
    "negated sentences",
    "negation instances",
    "non-empty scopes",
    "scope tokens",
    "mean scope length",
)


def display_name(name: str) -> str:
    """``CD-SCO`` for ``cd-sco`` and so on; a file name as it is."""
    return CORPUS_NAMES.get(name, name)


def split_table(report: Mapping[str, Any]) -> str:
    """One row per corpus and split: documents, sentences, negated sentences, instances, scopes, scope tokens."""
    rows = [
        [
            display_name(row["corpus"]),
            row["split"],
            f"{row['documents']:,}",
            f"{row['sentences']:,}",
            f"{row['negated_sentences']:,}",
            f"{row['instances']:,}",
            f"{row['scopes']:,}",
            f"{row['scope_tokens']:,}",
            f"{row['mean_scope_length']:.2f}",
        ]
        for row in report["rows"]
    ]
    return markdown_table(_SPLIT_HEADERS, rows)


def length_table(report: Mapping[str, Any]) -> str:
    """Negation instances by scope length: one column per corpus (or file), one row per length."""
    distributions = {name: {int(k): v for k, v in counts.items()} for name, counts in report["scope_lengths"].items()}
    lengths = sorted({length for counts in distributions.values() for length in counts})
    headers = ["scope length", *(display_name(name) for name in distributions)]
    rows = [[str(length), *(str(counts.get(length, 0)) for counts in distributions.values())] for length in lengths]
    return markdown_table(headers, rows)


def markdown(report: Mapping[str, Any]) -> str:
    """Both tables with their headings and a line saying how scope length is counted."""
    return (
        "\n\n".join(
            [
                "## Counts per split",
                split_table(report),
                "## Negation instances by scope length",
                "Scope length: scope tokens holding a letter, digit or underscore (punctuation left out, as the NIS "
                "scorer counts them); 0 is an empty scope. A scope never contains its own cue words.",
                length_table(report),
            ]
        )
        + "\n"
    )


def file_stem(name: str) -> str:
    """A file-name-safe form of a corpus or file name."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", Path(name).name if "/" in name else name).strip("-") or "corpus"


def write_figures(report: Mapping[str, Any], out: str | Path, command: str = "") -> dict[str, Path]:
    """Write ``scope-lengths-NAME.svg`` and ``.png`` per corpus and ``index.html`` (tables and figures; ``command``,
    when given, is shown as the command that reproduces the page) into ``out``; return the paths by name. Without
    matplotlib only the page is written, saying so."""
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    written: dict[str, Path] = {}
    figures = []
    if plots.available():
        for name, counts in report["scope_lengths"].items():
            title = f"{display_name(name)}: negation instances by scope length"
            svg, png = plots.histogram(
                {int(k): v for k, v in counts.items()}, title, "scope length (tokens)", "negation instances"
            )
            stem = f"scope-lengths-{file_stem(name)}"
            for suffix, content in ((".svg", svg.encode("utf-8") + b"\n"), (".png", png)):
                atomic_write_bytes(folder / f"{stem}{suffix}", content)
                written[f"{stem}{suffix}"] = folder / f"{stem}{suffix}"
            figures.append((title, svg))
    body = ["<h1>Negation-resolution corpora</h1>"]
    if command:
        body.append(f'<p class="meta">Made by <code>{html.escape(command)}</code></p>')
    body.append(markdown_to_html(markdown(report)))
    body.append(
        figures_html(figures)
        if figures
        else '<p class="note">Figures need matplotlib: <code>pip install negkit[report]</code>.</p>'
    )
    atomic_write_text(folder / HTML_FILE, page("Negation-resolution corpora", body))
    written[HTML_FILE] = folder / HTML_FILE
    return written
