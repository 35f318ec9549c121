"""``negkit leaderboard``'s published reference rows (``--published``), parameter counts (catalogue, ``--parameters``)
and scaling figures, and ``leaderboard.md``, on the hand-made ScoNe run folders of ``test_leaderboard``."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pytest
from browser import find_chromium, render
from test_leaderboard import OPTIONS, _scone, runs  # noqa: F401 (runs: a fixture)

from negkit.benchmarks.blimp import PARADIGMS
from negkit.benchmarks.tind.metrics import COHERENCE_MEASURES
from negkit.benchmarks.tind.types import PATTERN_NAMES
from negkit.cli import main
from negkit.errors import InputFormatError, NegkitError
from negkit.kit.render import plots
from negkit.kit.suites import suite_view
from negkit.leaderboard.published import MARK, parse_count, read_published
from negkit.leaderboard.scaling import parse_parameters, recorded_parameters
from negkit.leaderboard.site import leaderboard, leaderboard_data
from negkit.models.catalogue import catalogue_model

HEADER = "model,task,metric,value,source,note\n"
REFERENCE = Path(__file__).resolve().parents[2] / "docs" / "results" / "published-reference.csv"


def _csv(tmp_path: Path, text: str, name: str = "published.csv") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _set_model(folder: Path, model: dict) -> Path:
    """Rewrite the ``model`` record of the run folder's ScoNe results."""
    results = folder / "scone.results.json"
    data = json.loads(results.read_text(encoding="utf-8"))
    data["model"] = model
    results.write_text(json.dumps(data), encoding="utf-8")
    return folder


def _table(page: str, marker: str) -> str:
    start = page.index(marker)
    return page[start : page.index("</table>", start)]


def test_published_rows_are_kept_apart_marked_and_never_ranked(runs, tmp_path):  # noqa: F811
    published = _csv(
        tmp_path,
        HEADER + "RoBERTa,scone,accuracy.overall,0.95,Paper A (Table 1),fine-tuned\n"
        "RoBERTa,scone,accuracy.no_negation,0.9,Paper A (Table 2),\n",
    )
    plain = leaderboard_data([runs["constant"], runs["random"]], OPTIONS, suite_view)
    data = leaderboard_data([runs["constant"], runs["random"]], OPTIONS, suite_view, [published])
    # the run models' cells, ranks, best and paired differences are those without the published rows
    assert data["cells"] == plain["cells"] and data["mean_rank"] == plain["mean_rank"]
    assert data["columns"][0]["best"] == "constant" and "RoBERTa" not in data["cells"]
    # values in percent (ScoNe reports fractions); the second row on another metric, labelled with it
    assert [(row["model"], row["value"], row["primary"], row["metric_label"]) for row in data["published"]] == [
        ("RoBERTa", 95.0, True, "overall"),
        ("RoBERTa", 90.0, False, "no_negation"),
    ]
    assert data["published"][0]["source"] == "Paper A (Table 1)" and data["published"][0]["line"] == 2

    out = tmp_path / "site"
    paths = leaderboard([runs["constant"], runs["random"]], out, OPTIONS, suite_view, [published])
    index = paths["index"].read_text(encoding="utf-8")
    assert "RoBERTa" not in _table(index, 'id="ranking"')  # not a ranked row
    table = _table(index, 'id="published"')
    assert "RoBERTa" in table and MARK in table and "Paper A (Table 1) (fine-tuned)" in table and "95.0" in table
    heat = _table(index, 'id="heatmap"')
    assert heat.index(MARK) < heat.index("RoBERTa") and 'class="hollow"' in heat  # below a separating row
    per_task = index[index.index("<h3>scone</h3>") :]
    assert "90.0 (no_negation)" in per_task and MARK in per_task
    markdown = paths["markdown"].read_text(encoding="utf-8")
    ranking = markdown[markdown.index("## Ranking") : markdown.index("## Published")]
    assert "RoBERTa" not in ranking
    assert f"| RoBERTa ({MARK}) | scone | overall | 95.0 | Paper A (Table 1) (fine-tuned) |" in markdown
    assert "| RoBERTa (published, not run here) | 90.0 (no_negation) | Paper A (Table 2) |" in markdown
    assert json.loads(paths["json"].read_text())["published"][1]["value_as_published"] == 0.9


def test_the_tables_say_which_models_differ_significantly_from_the_best(runs, tmp_path):  # noqa: F811
    paths = leaderboard([runs[name] for name in ("oracle", "constant", "random")], tmp_path / "s", OPTIONS, suite_view)
    index = paths["index"].read_text(encoding="utf-8")
    # constant (-40) and random (-50) are significantly below oracle (see test_leaderboard)
    assert re.search(r"significantly below oracle: constant \(p=0\.\d+\), random \(p=0\.\d+\)", index)
    assert "not distinguishable from oracle: none" in index
    markdown = paths["markdown"].read_text(encoding="utf-8")
    assert "| 1.0 | oracle | 10 | 100.0 [" in markdown and "| best |" in markdown
    assert re.search(r"\| -40\.0 \[-\d+\.\d, -\d+\.\d\], p=0\.\d+ \* \|", markdown)


@pytest.mark.parametrize(
    ("text", "line", "problem"),
    [
        ("model,task,metric,value\n", 1, "the header lacks the column(s) source"),
        ("model,task,metric,value,source,extra\n", 1, "unknown column(s) 'extra'"),
        (HEADER + "a,scone,accuracy.overall,0.5,p,\nb,tinnd,all.accuracy,50,p,\n", 3, "task 'tinnd' is no task negkit"),
        (HEADER + "a,scone,accuracy.overall,n/a,p,\n", 2, "value 'n/a' is not a finite number"),
        (HEADER + "a,scone,accuracy.overall,nan,p,\n", 2, "value 'nan' is not a finite number"),
        (HEADER + "a,scone,accuracy.bogus,0.5,p,\n", 2, "task scone reports no metric 'accuracy.bogus'"),
        (HEADER + "a,scone,accuracy.overall,0.5\n", 2, "4 fields, the header has 6"),
        (HEADER + "\na,scone,accuracy.overall,0.5,,\n", 3, "empty field(s) source"),
        ("model,task,metric,value,source,params\na,scone,accuracy.overall,0.5,p,huge\n", 2, "params: 'huge'"),
    ],
)
def test_a_bad_published_row_is_refused_naming_file_and_line(runs, tmp_path, text, line, problem):  # noqa: F811
    path = _csv(tmp_path, text)
    with pytest.raises(InputFormatError) as caught:
        leaderboard_data([runs["random"]], OPTIONS, suite_view, [path])
    assert str(caught.value).startswith(f"{path}:{line}: ") and problem in str(caught.value)


def test_rows_of_known_tasks_the_leaderboard_lacks_are_left_out_and_said(runs, tmp_path):  # noqa: F811
    published = _csv(
        tmp_path, HEADER + "a,scone,accuracy.overall,0.5,p,\nb,neqa,acc,0.5,p,\nc,nevir,pairwise_accuracy,0.5,p,\n"
    )
    data = leaderboard_data([runs["random"]], OPTIONS, suite_view, [published])
    assert [row["model"] for row in data["published"]] == ["a"]
    assert [(row["task"], row["line"]) for row in data["published_left_out"]] == [("neqa", 3), ("nevir", 4)]
    paths = leaderboard([runs["random"]], tmp_path / "site", OPTIONS, suite_view, [published])
    assert "Published rows left out, their tasks not on this leaderboard: 2 (neqa, nevir)." in paths[
        "markdown"
    ].read_text(encoding="utf-8")


def test_cli_refuses_a_bad_published_file_and_bad_parameters(runs, tmp_path, capsys):  # noqa: F811
    path = _csv(tmp_path, HEADER + "a,neqa-typo,acc,0.5,p,\n")
    arguments = ["leaderboard", str(runs["random"]), "--out", str(tmp_path / "x"), "--bootstrap", "20"]
    assert main([*arguments, "--published", str(path)]) == 2
    error = capsys.readouterr().err.strip()
    assert error.startswith(f"negkit: error: {path}:2: task 'neqa-typo' is no task negkit knows") and "\n" not in error
    assert main([*arguments, "--parameters", "random"]) == 2
    assert "--parameters: 'random' is not NAME=COUNT" in capsys.readouterr().err
    assert main([*arguments, "--parameters", "nobody=1B"]) == 2
    assert "--parameters names no model of the leaderboard: nobody" in capsys.readouterr().err


def test_parameter_counts_are_parsed():
    assert parse_count("135M") == 135_000_000 and parse_count("1.5B") == 1_500_000_000
    assert parse_count("134_515_008") == 134_515_008 and parse_count("2k") == 2_000 and parse_count(" 7G ") == 7 * 10**9
    for bad in ("", "abc", "-1M", "0", "1.5X", "inf"):
        with pytest.raises(NegkitError, match="is not a parameter count"):
            parse_count(bad)
    assert parse_parameters(["a=135M,b=1.5B", "c=7", "x=y=2K"]) == {
        "a": 135 * 10**6,
        "b": 15 * 10**8,
        "c": 7,
        "x=y": 2000,
    }
    with pytest.raises(NegkitError, match="'=5M' is not NAME=COUNT"):
        parse_parameters(["=5M"])
    assert plots.count_text(1.5e9) == "1.5B" and plots.count_text(135e6) == "135M" and plots.count_text(12) == "12"


def test_parameter_counts_are_read_from_the_catalogue():
    smollm2 = catalogue_model("default")
    assert recorded_parameters([{"name": "x", "load": {"catalogue": {"name": "gemma3-270m"}}}]) == 268_098_176
    assert recorded_parameters([{"name": smollm2.fingerprint_name}]) == smollm2.parameters == 134_515_008
    assert recorded_parameters([{"name": "default"}]) == 134_515_008
    assert recorded_parameters([{"name": "random", "backend": "baseline"}]) is None
    assert recorded_parameters([{"name": "gemma3-270m"}, {"name": "default"}]) is None  # two models: no one count
    assert recorded_parameters([{"name": ""}]) is None


@pytest.mark.skipif(not plots.available(), reason="matplotlib is not installed (pip install negkit[report])")
def test_scaling_figure_one_point_per_model_with_a_parameter_count(tmp_path):
    gold = ["entailment"] * 6 + ["neutral"] * 4
    small = _set_model(
        _scone(tmp_path / "small", "s", gold[:8] + ["entailment"] * 2),
        {"name": "default:SmolLM2-135M-Instruct.Q4_1.gguf", "load": {"catalogue": {"name": "smollm2-135m-instruct"}}},
    )
    big = _scone(tmp_path / "big", "big", gold)
    unknown = _scone(tmp_path / "unknown", "unknown", ["neutral"] * 10)
    baseline = _set_model(
        _scone(tmp_path / "random", "random", ["entailment"] * 10), {"name": "random", "backend": "baseline"}
    )
    published = _csv(
        tmp_path,
        "model,task,metric,value,source,params\nBigLM,scone,accuracy.overall,0.7,Paper B,7B\n"
        "NoSize,scone,accuracy.overall,0.6,Paper C,\nBigLM,scone,accuracy.no_negation,0.8,Paper B,7B\n",
    )
    entries = [f"small={small}", big, unknown, baseline]
    out = tmp_path / "site"
    paths = leaderboard(entries, out, OPTIONS, suite_view, [published], {"big": 1_500_000_000})
    data = json.loads(paths["json"].read_text(encoding="utf-8"))
    sizes = {
        model["name"]: (model["parameters"], model["parameters_source"], model["baseline"]) for model in data["models"]
    }
    assert sizes == {
        "small": (134_515_008, "catalogue", False),
        "big": (1_500_000_000, "--parameters", False),
        "unknown": (None, None, False),
        "random": (None, None, True),
    }
    (panel,) = data["scaling"]
    assert [(p["model"], p["parameters"], p["estimate"]) for p in panel["points"]] == [
        ("small", 134_515_008, 80.0),
        ("big", 1_500_000_000, 100.0),
    ]
    assert [(b["model"], b["estimate"]) for b in panel["baselines"]] == [("random", 60.0)]
    assert [(p["model"], p["parameters"], p["value"]) for p in panel["published"]] == [("BigLM", 7 * 10**9, 70.0)]
    assert panel["without_parameters"] == ["unknown"] and panel["figure"] == "figures/scaling-scone.svg"
    svg = (out / "figures" / "scaling-scone.svg").read_text(encoding="utf-8")
    assert svg.startswith("<svg") and len(re.findall(r'id="scaling-point-\d+"', svg)) == 2
    assert len(re.findall(r'id="scaling-hollow-\d+"', svg)) == 1 and len(re.findall(r'id="scaling-line-\d+"', svg)) == 1
    index = paths["index"].read_text(encoding="utf-8")
    assert "<h2>Scaling</h2>" in index and 'href="figures/scaling-scone.svg"' in index
    assert "Left out (no parameter count; give one with --parameters): unknown." in index
    markdown = paths["markdown"].read_text(encoding="utf-8")
    assert "- scone: ![scaling scone](figures/scaling-scone.svg) (left out, no parameter count: unknown)" in markdown
    again = leaderboard(entries, tmp_path / "again", OPTIONS, suite_view, [published], {"big": 1_500_000_000})
    assert again["figure:scone"].read_bytes() == paths["figure:scone"].read_bytes()
    assert again["index"].read_bytes() == paths["index"].read_bytes()
    assert again["markdown"].read_bytes() == paths["markdown"].read_bytes()


def test_the_reference_file_reads_and_names_negkit_metrics_on_negkit_scales():
    rows = read_published(REFERENCE)
    assert len(rows) == 69 and all(row.source for row in rows)
    tind = {
        "all_affirmations.accuracy",
        "all_negations.accuracy",
        *(f"coherence_scores.{measure}.Coherence_percentage" for measure in COHERENCE_MEASURES),
        *(f"{pattern}.all.accuracy" for pattern in PATTERN_NAMES.values()),
    }
    for row in rows:
        view = suite_view(row.task)
        assert view is not None, row.task
        paradigms = {f"paradigms.{name}.accuracy" for name in PARADIGMS} if row.task == "blimp-negation" else set()
        extra = tind if row.task == "tind" else {"summary.acc_norm.mean"} if row.task == "nubench" else set()
        assert row.metric in {view.primary_metric, "consistency.all.accuracy", *paradigms, *extra}, row
        assert 0 <= row.value <= view.scale[1], row  # fractions for suites in [0, 1], percent for TIND
    with REFERENCE.open(encoding="utf-8") as handle:
        assert next(csv.reader(handle)) == ["model", "task", "metric", "value", "source", "note", "params"]


@pytest.mark.skipif(
    find_chromium() is None or not plots.available(),
    reason="chromium or matplotlib is not installed (scripts/setup.sh installs both)",
)
def test_browser_renders_the_published_rows_and_the_scaling_figure(runs, tmp_path):  # noqa: F811
    published = _csv(tmp_path, HEADER + "RoBERTa,scone,accuracy.overall,0.95,Paper A,\n")
    out = tmp_path / "site"
    leaderboard([runs["oracle"], runs["random"]], out, OPTIONS, suite_view, [published], {"oracle": 10**9})
    rendered = render(out / "index.html", actions=("document.querySelectorAll('#published tr.published').length",))
    assert rendered.console_errors == [] and rendered.requests == [] and rendered.evaluated == [1]
