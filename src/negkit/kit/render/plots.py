"""Charts for the HTML reports, drawn with matplotlib and returned as inline SVG text (no file, no network).

Three kinds cover every figure of the reports: :func:`interval_bars` (grouped bars with asymmetric 95% interval
whiskers), :func:`heatmap` (a matrix with its values written in the cells) and :func:`forest` (differences from a
baseline with their intervals, around a line at 0); :func:`log_points` draws the leaderboard's scaling figures.
Output is deterministic: fixed SVG ids (``svg.hashsalt``), no date in the metadata, text drawn as paths so that the
picture does not depend on the viewer's fonts, except in a figure with characters the plotting font cannot draw
(Korean or Chinese labels without a CJK font): its text stays text in the SVG, so that the browser draws it with a
font that has them instead of empty boxes.

matplotlib is an optional dependency (``pip install negkit[report]``); :func:`available` says whether it is there.
A chart is a pure function of its arguments and takes matplotlib about 0.08 s, so a process keeps the last
:data:`REMEMBERED` charts it drew (keyed by the values of the arguments) and gives the same text when asked again:
the same figure on report.html, compare.html and a rerun's report is drawn once.
"""

from __future__ import annotations

import copy
import functools
import io
import math
import re
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ParamSpec, TypeVar

import numpy as np

#: Colours of the series (matplotlib's colour-blind friendly "tableau" order).
COLOURS = ("#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7")


#: How many charts a process keeps (an SVG chart is some 10-60 kB).
REMEMBERED = 256
_Arguments = ParamSpec("_Arguments")
_Chart = TypeVar("_Chart")


def _remembered(draw: Callable[_Arguments, _Chart]) -> Callable[_Arguments, _Chart]:
    """``draw`` with the last :data:`REMEMBERED` results kept, keyed by the values of its arguments (a call with
    an argument that is not made of numbers, strings, sequences and mappings is drawn every time)."""
    kept: OrderedDict[str, _Chart] = OrderedDict()

    @functools.wraps(draw)
    def chart(*args: _Arguments.args, **kwargs: _Arguments.kwargs) -> _Chart:
        try:
            key = repr(_plain((args, sorted(kwargs.items()))))
        except TypeError:
            return draw(*args, **kwargs)
        if key in kept:
            kept.move_to_end(key)
            return kept[key]
        drawn = kept[key] = draw(*args, **kwargs)
        while len(kept) > REMEMBERED:
            kept.popitem(last=False)
        return drawn

    return chart


def _plain(value: object) -> object:
    """``value`` as nested tuples of numbers and strings (whose ``repr`` is their value); ``TypeError`` for
    anything else."""
    if isinstance(value, np.generic):  # before float: np.float64 is a float whose repr names numpy
        return _plain(value.item())
    if value is None or isinstance(value, (str, int, float)):
        return value
    if isinstance(value, Mapping):
        return ("mapping", tuple((_plain(key), _plain(item)) for key, item in value.items()))
    if isinstance(value, (Sequence, np.ndarray)):
        return tuple(_plain(item) for item in value)
    raise TypeError(f"cannot key a chart by a {type(value).__name__}")


def available() -> bool:
    """True when matplotlib can be imported."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def _pyplot() -> Any:
    import matplotlib  # heavy: off the start-up path

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt  # heavy: off the start-up path

    matplotlib.rcParams.update(
        {
            "svg.hashsalt": "negkit",
            "svg.fonttype": "path",
            "font.size": 9,
            "axes.spines.top": False,
            "axes.spines.right": False,
            # names (runs, models, tasks) are drawn as written: "$" starts no formula
            "text.parse_math": False,
        }
    )
    return plt


def drawable(text: str) -> str:
    """``text`` without lone surrogates (a path of bytes that are not UTF-8, a ``\\ud800`` escape read from JSON),
    which fonts cannot draw and files cannot store: each becomes its ``\\udcff`` escape."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def to_svg(figure: Any) -> str:
    """The figure as an ``<svg>`` element (XML prolog and DOCTYPE removed), then closed."""
    from matplotlib.text import Text  # heavy: off the start-up path

    plt = _pyplot()
    for artist in figure.findobj(Text):
        artist.set_text(drawable(artist.get_text()))
    buffer = io.StringIO()
    fonttype = "path" if all(_drawable_by_font(artist.get_text()) for artist in figure.findobj(Text)) else "none"
    with plt.rc_context({"svg.fonttype": fonttype}):
        figure.savefig(buffer, format="svg", bbox_inches="tight", metadata={"Date": None, "Creator": None})
    plt.close(figure)
    text = buffer.getvalue()
    return text[text.index("<svg") :].strip()


_CHARMAP: set[int] = set()


def _drawable_by_font(text: str) -> bool:
    """Whether matplotlib's default font has a glyph for every character of ``text``."""
    if text.isascii():
        return True
    if not _CHARMAP:
        import matplotlib  # heavy: off the start-up path
        from matplotlib import font_manager, ft2font

        path = font_manager.findfont(font_manager.FontProperties(family=matplotlib.rcParams["font.family"]))
        _CHARMAP.update(ft2font.FT2Font(path).get_charmap())
    return all(ord(character) in _CHARMAP or character.isspace() for character in text)


def to_png(figure: Any, dpi: int = 150) -> bytes:
    """The figure as PNG bytes (no date or software name in the metadata, so equal figures give equal bytes);
    closes the figure."""
    plt = _pyplot()
    for artist in figure.findobj(_text_class()):
        artist.set_text(drawable(artist.get_text()))
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=dpi, bbox_inches="tight", metadata={"Software": None})
    plt.close(figure)
    return buffer.getvalue()


def _text_class() -> Any:
    from matplotlib.text import Text  # matplotlib is optional and heavy: imported when a figure is drawn

    return Text


@_remembered
def histogram(counts: Mapping[int, int], title: str, xlabel: str, ylabel: str) -> tuple[str, bytes]:
    """Bars of ``counts`` (integer value -> frequency) on an integer axis, as ``(svg, png)``."""
    plt = _pyplot()
    figure, axes = plt.subplots(figsize=(6.4, 3.0))
    values = sorted(counts)
    axes.bar(values, [counts[v] for v in values], width=0.85, color=COLOURS[0])
    axes.set_xlabel(xlabel)
    axes.set_ylabel(ylabel)
    axes.set_title(title)
    axes.set_xlim(min(values, default=0) - 0.9, max(values, default=0) + 0.9)
    axes.xaxis.get_major_locator().set_params(integer=True)
    png_figure = copy.deepcopy(figure)
    return to_svg(figure), to_png(png_figure)


def _half_widths(
    values: Sequence[float | None], lows: Sequence[float | None], highs: Sequence[float | None]
) -> list[list[float]]:
    below, above = [], []
    for value, low, high in zip(values, lows, highs):
        ok = value is not None and low is not None and high is not None
        below.append(max(0.0, value - low) if ok else 0.0)  # type: ignore[operator]
        above.append(max(0.0, high - value) if ok else 0.0)  # type: ignore[operator]
    return [below, above]


@_remembered
def interval_bars(
    categories: Sequence[str],
    series: Mapping[str, Sequence[tuple[float | None, float | None, float | None]]],
    title: str,
    ylabel: str,
    ylim: tuple[float, float] | None = None,
    reference: float | None = None,
    width: float = 6.4,
    wrap: int | None = None,
) -> str:
    """Grouped bars: one group per category, one bar per series; each value is ``(value, low, high)``.

    Tick labels of more than five categories are slanted, unless ``wrap`` is given: then every label is broken
    into lines of about ``wrap`` characters and set upright (for long labels that would overlap when slanted)."""
    plt = _pyplot()
    figure, axes = plt.subplots(figsize=(width, 3.2))
    count = max(len(series), 1)
    bar = 0.8 / count
    for position, (name, values) in enumerate(series.items()):
        centres = [index - 0.4 + bar * (position + 0.5) for index in range(len(categories))]
        heights = [value if value is not None else 0.0 for value, _, _ in values]
        errors = _half_widths([v for v, _, _ in values], [low for _, low, _ in values], [high for _, _, high in values])
        axes.bar(
            centres,
            heights,
            bar * 0.92,
            yerr=errors,
            capsize=3,
            label=name,
            color=COLOURS[position % len(COLOURS)],
            error_kw={"elinewidth": 1, "ecolor": "#333333"},
        )
    if reference is not None:
        axes.axhline(reference, color="#888888", linestyle="--", linewidth=1)
    if wrap is not None:
        axes.set_xticks(range(len(categories)), [_wrap(c, wrap) for c in categories], fontsize=8)
    elif len(categories) > 5:
        axes.set_xticks(
            range(len(categories)), [_wrap(c, 18) for c in categories], rotation=30, ha="right", rotation_mode="anchor"
        )
    else:
        axes.set_xticks(range(len(categories)), [_wrap(c) for c in categories])
    axes.set_ylabel(ylabel)
    axes.set_title(title)
    if ylim:
        axes.set_ylim(*ylim)
    if len(series) > 1 and wrap is None and len(categories) > 5:  # slanted labels below: the legend to the right
        axes.legend(frameon=False, fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    elif len(series) > 1:
        axes.legend(
            frameon=False, fontsize=8, ncols=min(len(series), 4), loc="upper center", bbox_to_anchor=(0.5, -0.18)
        )
    return to_svg(figure)


@_remembered
def heatmap(
    matrix: Sequence[Sequence[float | None]],
    rows: Sequence[str],
    columns: Sequence[str],
    title: str,
    vmin: float = 0.0,
    vmax: float = 1.0,
    digits: int = 2,
    colour_map: str = "viridis",
) -> str:
    """A matrix as coloured cells with the values written in them (an empty cell: a missing value)."""
    plt = _pyplot()

    data = np.array([[math.nan if value is None else float(value) for value in row] for row in matrix], dtype=float)
    figure, axes = plt.subplots(figsize=(max(3.0, 0.85 * len(columns) + 2.2), max(1.8, 0.36 * len(rows) + 1.2)))
    image = axes.imshow(np.ma.masked_invalid(data), cmap=colour_map, vmin=vmin, vmax=vmax, aspect="auto")
    axes.set_xticks(range(len(columns)), [_wrap(c, 12) for c in columns], fontsize=8)
    axes.set_yticks(range(len(rows)), rows, fontsize=8)
    axes.tick_params(length=0)
    for spine in axes.spines.values():
        spine.set_visible(False)
    for (row, column), value in np.ndenumerate(data):
        if not math.isnan(value):
            dark = (value - vmin) / ((vmax - vmin) or 1) < 0.55
            axes.text(
                column,
                row,
                f"{value:.{digits}f}",
                ha="center",
                va="center",
                fontsize=7.5,
                color="white" if dark else "black",
            )
    figure.colorbar(image, ax=axes, fraction=0.04, pad=0.02)
    axes.set_title(title)
    return to_svg(figure)


@_remembered
def forest(
    labels: Sequence[str],
    series: Mapping[str, Sequence[tuple[float | None, float | None, float | None]]],
    title: str,
    xlabel: str,
) -> str:
    """Differences from a baseline: a point and its interval per label and series, a line at 0."""
    plt = _pyplot()
    figure, axes = plt.subplots(figsize=(6.4, max(1.8, 0.34 * len(labels) * max(1, len(series)) ** 0.5 + 1.0)))
    count = max(len(series), 1)
    for position, (name, values) in enumerate(series.items()):
        offsets = [index + (position - (count - 1) / 2) * 0.8 / count for index in range(len(labels))]
        points = [(offset, value) for offset, (value, _, _) in zip(offsets, values) if value is not None]
        kept = [(v, lo, hi) for v, lo, hi in values if v is not None]
        errors = _half_widths([v for v, _, _ in kept], [lo for _, lo, _ in kept], [hi for _, _, hi in kept])
        axes.errorbar(
            [value for _, value in points],
            [offset for offset, _ in points],
            xerr=errors,
            fmt="o",
            capsize=3,
            label=name,
            color=COLOURS[position % len(COLOURS)],
            markersize=4,
        )
    axes.axvline(0, color="#888888", linewidth=1)
    axes.set_yticks(range(len(labels)), labels, fontsize=8)
    axes.invert_yaxis()
    axes.set_xlabel(xlabel)
    axes.set_title(title)
    if len(series) > 1:
        axes.legend(frameon=False, fontsize=8)
    return to_svg(figure)


@_remembered
def log_points(
    points: Sequence[tuple[str, float, float, float | None, float | None]],
    lines: Sequence[tuple[str, float]],
    hollow: Sequence[tuple[str, float, float]],
    title: str,
    xlabel: str,
    ylabel: str,
) -> str:
    """Values against a log-scaled x axis: ``points`` ``(label, x, value, low, high)`` as filled markers with their
    interval as error bars, ``lines`` ``(label, value)`` as dashed horizontal lines (e.g. baselines), ``hollow``
    ``(label, x, value)`` as hollow markers (e.g. published numbers); each labelled beside it. Every marker's and
    line's SVG group has an id (``scaling-point-N``, ``scaling-hollow-N``, ``scaling-line-N``), so that the picture
    can be checked."""
    plt = _pyplot()
    figure, axes = plt.subplots(figsize=(6.4, 3.6))
    from matplotlib.ticker import FuncFormatter, NullFormatter  # heavy: off the start-up path

    for index, (label, x, value, low, high) in enumerate(points):
        errors = _half_widths([value], [low], [high])
        colour = COLOURS[index % len(COLOURS)]
        axes.errorbar([x], [value], yerr=errors, fmt="o", capsize=3, color=colour, markersize=5).lines[0].set_gid(
            f"scaling-point-{index}"
        )
        # labels of points close along x stacked, not drawn over each other
        shift = sum(1 for _, other, *_ in points[:index] if abs(math.log10(other) - math.log10(x)) < 0.25)
        axes.annotate(
            label, (x, value), textcoords="offset points", xytext=(6, 4 - 9 * shift), fontsize=7, color=colour
        )
    for index, (label, x, value) in enumerate(hollow):
        (marker,) = axes.plot([x], [value], "o", markerfacecolor="none", markeredgecolor="#555555", markersize=6)
        marker.set_gid(f"scaling-hollow-{index}")
        axes.annotate(f"{label} (published)", (x, value), textcoords="offset points", xytext=(5, -9), fontsize=7)
    for index, (label, value) in enumerate(lines):
        axes.axhline(value, color="#888888", linestyle=(0, (4, 2 + index)), linewidth=1).set_gid(
            f"scaling-line-{index}"
        )
        axes.annotate(
            label,
            (0.0, value),
            xycoords=("axes fraction", "data"),
            xytext=(2, 2),
            textcoords="offset points",
            fontsize=7,
            color="#666666",
        )
    xs = [x for _, x, *_ in points] + [x for _, x, _ in hollow]
    if xs:
        axes.set_xscale("log")
        axes.set_xlim(min(xs) / 2.0, max(xs) * 2.5)
        axes.xaxis.set_major_formatter(FuncFormatter(lambda value, _: count_text(value)))
        narrow = max(xs) / min(xs) < 100  # few decades: the 2s and 5s between them labelled too
        minor = FuncFormatter(lambda value, _: count_text(value) if _mantissa(value) in (2, 5) else "")
        axes.xaxis.set_minor_formatter(minor if narrow else NullFormatter())
    axes.set_xlabel(xlabel)
    axes.set_ylabel(ylabel)
    axes.set_title(title)
    return to_svg(figure)


def _mantissa(value: float) -> int:
    return round(value / 10 ** math.floor(math.log10(value))) if value > 0 else 0


def count_text(value: float) -> str:
    """A count as a short label: ``100M``, ``1.5B``, ``10K``, ``12``."""
    for factor, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "K")):
        if abs(value) >= factor:
            return f"{value / factor:.3g}{suffix}"
    return f"{value:.3g}"


def _wrap(text: str, width: int = 14) -> str:
    """Break a long tick label at spaces, underscores or hyphens into lines of about ``width`` characters."""
    words = re.split(r"(?<=[ _-])", text)
    lines, line = [], ""
    for word in words:
        if line and len(line) + len(word) > width:
            lines.append(line)
            line = ""
        line += word
    lines.append(line)
    return "\n".join(part.strip() for part in lines)
