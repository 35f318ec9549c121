"""report.html: self-contained, deterministic, and rendered by a real headless browser (Debian's chromium) with
every chart drawn, no console error and no network request."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from browser import find_chromium, render
from conftest import NUBENCH_FIXTURE, shared_data_path

from negkit.commands.eval.evaluate import evaluate
from negkit.commands.eval.options import EvalOptions
from negkit.commands.report import HTML_FILE, run_html, write_html_report
from negkit.kit.render import plots
from negkit.kit.render.html import markdown_to_html
from negkit.kit.suites import suite_view
from negkit.resolution.report import resolution_sections

FIXTURE = NUBENCH_FIXTURE
#: Figures per section: TIND 3, NaN-NLI 3, ScoNe 1, Thunder-NUBench 2, negation resolution 1.
EXPECTED_FIGURES = 10


@pytest.fixture(scope="module")
def report_folder(tmp_path_factory) -> Path:
    """A run of the random baseline on every suite (TIND and ScoNe sampled) plus a resolution score, with its report."""
    pytest.importorskip("matplotlib")
    data = shared_data_path()
    out = tmp_path_factory.mktemp("report")
    results = evaluate(
        "random",
        ["tind", "nan-nli", "scone"],
        EvalOptions(data=str(data), limit={"tind": 300, "scone": 60}, out=out, progress=False, bootstrap=200),
    )
    results += evaluate(
        "random",
        ["nubench"],
        EvalOptions(
            data=str(FIXTURE), out=out, progress=False, bootstrap=200, task_options={"nubench": {"num_fewshot": 2}}
        ),
    )
    gold = data / "cd-sco" / "SEM-2012-SharedTask-CD-SCO-dev-09032012.txt"
    system = out / "punct-bl.txt"
    run = [sys.executable, "-m", "negkit", "resolution"]
    subprocess.run([*run, "baseline", str(gold), "--out", str(system)], check=True, capture_output=True)
    scored = subprocess.run(
        [*run, "score", str(gold), str(system), "--json"], check=True, capture_output=True, text=True
    ).stdout
    (out / "resolution-dev.json").write_text(scored, encoding="utf-8")
    assert "Scopes(cue match).f1" in json.loads(scored)["systems"][0]["intervals"]
    write_html_report(results, out, suite_view, resolution_sections(out))
    return out


def test_page_is_self_contained_and_deterministic(report_folder):
    page = (report_folder / HTML_FILE).read_text(encoding="utf-8")
    assert page.count("<svg") >= EXPECTED_FIGURES and "<script" not in page
    assert not re.search(r'(src|href)="(https?:)?//', page), "the page must not fetch anything"
    assert "[" in page and 'class="ci"' in page  # intervals shown in the tables
    results = [json.loads(p.read_text()) for p in sorted(report_folder.glob("*.results.json"))]
    for result in results:
        result["files"] = {
            "tables": str(report_folder / f"{result['task']['task']}.md"),
            "samples": str(report_folder / f"{result['task']['task']}.samples.jsonl"),
        }
    assert run_html(results, suites=suite_view) == run_html(results, suites=suite_view)  # same input, same bytes


@pytest.mark.skipif(
    find_chromium() is None,
    reason="chromium is not installed (scripts/setup.sh installs Debian's "
    "chromium; without it the browser check cannot run)",
)
def test_browser_renders_every_chart(report_folder, tmp_path):
    from PIL import Image

    rendered = render(report_folder / HTML_FILE)
    assert rendered.console_errors == []
    assert rendered.requests == []
    assert rendered.title.startswith("negkit report: random")
    assert rendered.content_width <= 1280, "the page scrolls sideways at 1280 px"
    charts = [element for element in rendered.elements if element["tag"] in ("svg", "canvas")]
    assert len(charts) == EXPECTED_FIGURES
    image = Image.open(io.BytesIO(rendered.screenshot)).convert("L")
    (tmp_path / "report.png").write_bytes(rendered.screenshot)
    for chart in charts:
        assert chart["width"] > 150 and chart["height"] > 120 and chart["drawn"] > 20, chart
        box = (int(chart["x"]), int(chart["y"]), int(chart["x"] + chart["width"]), int(chart["y"] + chart["height"]))
        inked = float((np.asarray(image.crop(box)) < 200).mean())
        assert inked > 0.02, f"chart at {box} looks blank ({inked:.1%} inked pixels)"


@pytest.mark.skipif(find_chromium() is None, reason="chromium is not installed (see scripts/setup.sh)")
def test_browser_check_sees_errors_and_requests(tmp_path):
    page = tmp_path / "bad.html"
    page.write_text(
        '<!DOCTYPE html><html><head><title>bad</title></head><body><svg width="10" height="10"></svg>'
        '<img src="http://negkit.invalid/x.png"><script>console.error("broken chart")</script></body></html>'
    )
    rendered = render(page)
    assert any("broken chart" in error for error in rendered.console_errors)
    assert rendered.requests == ["http://negkit.invalid/x.png"]
    assert rendered.elements[0]["drawn"] == 0


def test_markdown_to_html_tables_headings_and_intervals():
    text = (
        "## Title `x`\n\nSome **bold** text\nwrapped.\n\n| run | acc |\n|---|---|\n| a \\| b | 0.500 [0.400, 0.600] |\n"
    )
    out = markdown_to_html(text)
    assert "<h3>Title <code>x</code></h3>" in out
    assert "<p>Some <strong>bold</strong> text wrapped.</p>" in out
    assert '<td class="t">a | b</td><td>0.500 <span class="ci">[0.400, 0.600]</span></td>' in out
    assert '<td>+1.0 <span class="ci">[+0.5, +1.5] p=0.010</span> <span class="sig">*</span></td>' in markdown_to_html(
        "| h | d |\n|---|---|\n| x | +1.0 [+0.5, +1.5] p=0.010 * |"
    )
    assert "&lt;script&gt;" in markdown_to_html("<script>")


def test_without_matplotlib_the_page_keeps_its_tables(report_folder, monkeypatch):
    monkeypatch.setattr(plots, "available", lambda: False)
    results = [json.loads(p.read_text()) for p in sorted(report_folder.glob("scone.results.json"))]
    results[0]["files"] = {"tables": str(report_folder / "scone.md")}
    page = run_html(results, suites=suite_view)
    assert "<svg" not in page and "pip install negkit[report]" in page and "<table>" in page


def test_report_command_rewrites_the_page_of_a_run_folder(report_folder, capsys):
    from negkit.cli import main

    page = report_folder / HTML_FILE
    page.unlink()
    assert main(["report", str(report_folder)]) == 0
    assert capsys.readouterr().out.strip() == str(page)
    text = page.read_text(encoding="utf-8")
    assert text.index("<h2>tind</h2>") < text.index("<h2>nan-nli</h2>") < text.index("<h2>scone</h2>")
    assert text.count("<svg") >= EXPECTED_FIGURES


def test_summary_puts_every_suite_in_percent():
    from negkit.commands.report import summary_table
    from negkit.kit.suites import suite_view

    def result(task, estimate, low, high):
        path = {"tind": "all.accuracy", "scone": "accuracy.overall"}[task]
        return {
            "task": {"task": task},
            "data": {"count": 10},
            "metrics": {"intervals": {path: {"estimate": estimate, "ci": [low, high], "label": "accuracy"}}},
        }

    table = summary_table([result("tind", 50.26, 48.5, 52.0), result("scone", 0.5125, 0.4, 0.625)], suite_view)
    lines = table.splitlines()
    assert lines[0] == "| task | items | main metric | value in % [95% interval] |"
    assert lines[2] == "| tind | 10 | accuracy | 50.26 [48.50, 52.00] |"  # TIND is in percent already
    assert lines[3] == "| scone | 10 | accuracy | 51.25 [40.00, 62.50] |"  # a fraction, times 100


def test_scone_condition_labels_do_not_overlap(monkeypatch):
    pytest.importorskip("matplotlib")
    from negkit.benchmarks.scone import scone_figures
    from negkit.benchmarks.scone.data import SCONE_CONDITIONS
    from negkit.kit.render import plots

    captured = []
    real = plots.to_svg
    monkeypatch.setattr(plots, "to_svg", lambda figure: captured.append(figure) or real(figure))
    scone_figures({"accuracy": {c: 0.5 for c in (*SCONE_CONDITIONS, "overall")}})
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    figure = captured[0]
    renderer = FigureCanvasAgg(figure).get_renderer()
    boxes = [label.get_window_extent(renderer) for label in figure.axes[0].get_xticklabels()]
    assert len(boxes) == 7
    assert all(left.x1 < right.x0 for left, right in zip(boxes, boxes[1:])), "tick labels overlap"
    assert "one\nscoped,\none not\nscoped" in [label.get_text() for label in figure.axes[0].get_xticklabels()]


@pytest.mark.skipif(find_chromium() is None, reason="chromium is not installed (see scripts/setup.sh)")
def test_compare_page_fits_1280_pixels(report_folder, tmp_path):
    from negkit.commands.compare import compare
    from negkit.commands.compare_page import write_comparison
    from negkit.kit.suites import suite_view

    other = tmp_path / "seed1"
    evaluate(
        "random",
        ["tind"],
        EvalOptions(
            data=str(shared_data_path()),
            limit={"tind": 300},
            out=other,
            progress=False,
            bootstrap=100,
            model_args={"seed": 1},
        ),
    )
    write_comparison(compare([report_folder, other], suites=suite_view), tmp_path / "compare")
    rendered = render(tmp_path / "compare" / "compare.html")
    assert rendered.console_errors == [] and rendered.requests == []
    assert rendered.content_width <= 1280, f"compare.html is {rendered.content_width} px wide at 1280"
