"""``negkit leaderboard``: ranks, intervals and paired differences from the best model on hand-made run folders
whose numbers are worked out by hand; the static site (offline, deterministic) and its sortable table in headless
chromium."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from browser import find_chromium, render

from negkit.cli import main
from negkit.errors import NegkitError
from negkit.kit.suites import suite_view
from negkit.kit.view import no_suites
from negkit.leaderboard.pages import colour
from negkit.leaderboard.site import LeaderboardOptions, leaderboard, leaderboard_data, parse_entries, slug
from negkit.leaderboard.tables import leaderboard_markdown

OPTIONS = LeaderboardOptions(resamples=400)
#: Ten ScoNe-like base pairs (one condition): six gold "entailment", four "neutral".
GOLD = ["entailment"] * 6 + ["neutral"] * 4


def _write_run(
    folder: Path, task: str, model: str, records: list[dict], split: str = "test", backend: str | None = None
) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    results = {
        "task": {"task": task},
        "model": {"name": model, **({"backend": backend} if backend else {})},
        "data": {"split": split},
        "record": {"command": f"negkit eval --model {model} --tasks {task}"},
        "metrics": {},
    }
    (folder / f"{task}.results.json").write_text(json.dumps(results), encoding="utf-8")
    (folder / f"{task}.samples.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return folder


def _scone(folder: Path, model: str, predictions: list[str], backend: str | None = None) -> Path:
    records = [
        {
            "item_id": f"scone-test-no_negation-{row}",
            "gold": gold,
            "prediction": guess,
            "row": row,
            "condition": "no_negation",
        }
        for row, (gold, guess) in enumerate(zip(GOLD, predictions))
    ]
    return _write_run(folder, "scone", model, records, backend=backend)


def _condaqa(folder: Path, model: str, correct: list[bool], split: str = "dev") -> Path:
    records = [
        {"item_id": f"q{index}", "passage_id": index // 2, "question_id": index, "edit": "original", "correct": value}
        for index, value in enumerate(correct)
    ]
    return _write_run(folder, "condaqa", model, records, split)


@pytest.fixture()
def runs(tmp_path) -> dict[str, Path]:
    # random: hand-drawn answers, right on rows 0, 2, 4 (entailment) and 6, 9 (neutral): 5 of 10
    random_answers = [
        "entailment",
        "neutral",
        "entailment",
        "neutral",
        "entailment",
        "neutral",
        "neutral",
        "entailment",
        "entailment",
        "neutral",
    ]
    return {
        "oracle": _scone(tmp_path / "oracle", "oracle", GOLD),
        "constant": _scone(tmp_path / "constant", "constant", ["entailment"] * 10),
        "majority": _scone(tmp_path / "majority", "majority", ["entailment"] * 10),
        "random": _scone(tmp_path / "random", "random", random_answers),
    }


def test_values_ranks_and_differences_from_the_best(runs):
    data = leaderboard_data([runs[name] for name in ("random", "constant", "majority", "oracle")], OPTIONS, suite_view)
    assert [column["key"] for column in data["columns"]] == ["scone"]
    column = data["columns"][0]
    assert column["metric"] == "accuracy.overall" and column["unit"] == "ScoNe base pair" and column["best"] == "oracle"
    cells = {name: data["cells"][name]["scone"] for name in ("oracle", "constant", "majority", "random")}
    # accuracy in percent: 10/10, 6/10 (the six entailment pairs), 6/10, 5/10
    assert {name: cell["estimate"] for name, cell in cells.items()} == {
        "oracle": 100.0,
        "constant": 60.0,
        "majority": 60.0,
        "random": 50.0,
    }
    assert {name: cell["rank"] for name, cell in cells.items()} == {
        "oracle": 1.0,
        "constant": 2.5,
        "majority": 2.5,
        "random": 4.0,
    }
    assert cells["oracle"]["best"] and not cells["constant"]["best"] and cells["oracle"]["vs_best"] is None
    # all pairs right: every resample gives 100, the Wilson interval over 10 units instead
    assert cells["oracle"]["ci"][1] == 100.0 and 60 < cells["oracle"]["ci"][0] < 75
    low, high = cells["constant"]["ci"]
    assert 20 <= low < 60 < high <= 90
    versus = cells["constant"]["vs_best"]
    assert versus["difference"] == pytest.approx(-40.0) and versus["shared_items"] == 10 and versus["units"] == 10
    # the four neutral pairs are the only differences: a resample without any of them has probability 0.6^10 < 0.025
    assert versus["significant"] and versus["ci"][1] < 0 and versus["p_value"] < 0.05
    assert (
        cells["random"]["vs_best"]["difference"] == pytest.approx(-50.0) and cells["random"]["vs_best"]["significant"]
    )
    assert data["mean_rank"]["oracle"] == {"mean": 1.0, "columns": 1, "covered": 1, "of": 1}


def test_a_tie_is_not_significant_and_every_tied_model_is_best(runs):
    data = leaderboard_data([runs["constant"], runs["majority"]], OPTIONS, suite_view)
    cells = data["cells"]
    assert cells["constant"]["scone"]["best"] and cells["majority"]["scone"]["best"]
    versus = cells["majority"]["scone"]["vs_best"]
    assert versus["difference"] == 0.0 and not versus["significant"] and versus["p_value"] == 1.0


def test_named_folders_form_one_model_and_splits_are_columns(runs, tmp_path):
    dev = _condaqa(tmp_path / "constant-condaqa", "constant", [True, False, True, True])  # 3 of 4
    test = _condaqa(tmp_path / "random-condaqa-test", "random", [False, False, True, False], split="test")
    other = _condaqa(tmp_path / "random-condaqa-dev", "random", [True, False, False, False])
    data = leaderboard_data(
        [
            f"constant={runs['constant']}",
            f"constant={dev}",
            f"random={runs['random']}",
            f"random={test}",
            f"random={other}",
        ],
        OPTIONS,
        suite_view,
    )
    assert [model["name"] for model in data["models"]] == ["constant", "random"]
    assert [column["key"] for column in data["columns"]] == ["scone", "condaqa [dev]", "condaqa [test]"]
    assert data["cells"]["constant"]["condaqa [dev]"]["estimate"] == 75.0
    assert data["cells"]["random"]["condaqa [dev]"]["estimate"] == 25.0
    assert data["cells"]["random"]["condaqa [test]"]["estimate"] == 25.0
    assert "condaqa [test]" not in data["cells"]["constant"]
    # mean ranks over the columns both have (scone, condaqa [dev]); random alone on condaqa [test] is not "best"
    assert data["mean_rank"]["constant"] == {"mean": 1.0, "columns": 2, "covered": 2, "of": 3}
    assert data["mean_rank"]["random"] == {"mean": 2.0, "columns": 2, "covered": 3, "of": 3}
    assert not data["cells"]["random"]["condaqa [test]"]["best"] and data["columns"][2]["best"] is None
    assert data["columns"][1]["unit"] == "CondaQA passage"
    picked = leaderboard_data(
        [f"random={runs['random']}", f"random={test}", f"random={other}"],
        LeaderboardOptions(resamples=100, tasks=("condaqa", "scone")),
        suite_view,
    )
    assert [column["key"] for column in picked["columns"]] == ["condaqa [dev]", "condaqa [test]", "scone"]
    with pytest.raises(NegkitError, match="--tasks names tasks no run has: tind"):
        leaderboard_data([runs["random"]], LeaderboardOptions(resamples=100, tasks=("tind",)), suite_view)
    with pytest.raises(NegkitError, match="task scone is in both"):
        leaderboard_data([f"m={runs['constant']}", f"m={runs['random']}"], OPTIONS, suite_view)


def test_a_folder_gives_only_the_tasks_named_after_its_hash(runs, tmp_path):
    """A suite rerun in its own folder (here: random's ScoNe) replaces the copy in a folder holding more tasks."""
    both = _scone(tmp_path / "both", "oracle", GOLD)  # ScoNe 10 of 10
    _condaqa(both, "oracle", [True, True, False, False])  # CondaQA dev 2 of 4
    with pytest.raises(NegkitError, match=r"task scone is in both .*RUN_DIR#TASK"):
        leaderboard_data([f"m={both}", f"m={runs['random']}"], OPTIONS, suite_view)
    data = leaderboard_data([f"m={both}#condaqa", f"m={runs['random']}", f"n={both}#scone"], OPTIONS, suite_view)
    assert set(data["cells"]["m"]) == {"scone", "condaqa"} and set(data["cells"]["n"]) == {"scone"}
    assert data["cells"]["m"]["scone"]["estimate"] == 50.0 and data["cells"]["n"]["scone"]["estimate"] == 100.0
    assert data["cells"]["m"]["condaqa"]["estimate"] == 50.0
    # the site names each folder, with its parent where two of a model's folders share a name
    sample, full = tmp_path / "sample" / "m", tmp_path / "full" / "m"
    _scone(sample, "oracle", GOLD)
    _condaqa(sample, "oracle", [True, False])
    _scone(full, "oracle", GOLD)
    index = leaderboard([f"m={sample}#condaqa", f"m={full}"], tmp_path / "site", OPTIONS, suite_view)
    assert "sample/m, full/m</span>" in index["index"].read_text(encoding="utf-8")
    with pytest.raises(NegkitError, match=r"both: no task tind, neqa in this run folder \(it has: condaqa, scone\)"):
        leaderboard_data([f"{both}#tind,neqa,scone"], OPTIONS, suite_view)


def test_entries_and_slugs(tmp_path):
    odd = tmp_path / "a=b"
    odd.mkdir()
    hashed = tmp_path / "c#d"
    hashed.mkdir()
    assert parse_entries(["x=runs/a", str(odd), "runs/b", "y=runs/c#scone, tind", f"z={hashed}", "runs/e#scone"]) == [
        ("x", Path("runs/a"), None),
        (None, odd, None),
        (None, Path("runs/b"), None),
        ("y", Path("runs/c"), ("scone", "tind")),
        ("z", hashed, None),
        (None, Path("runs/e"), ("scone",)),
    ]
    with pytest.raises(NegkitError, match="no task named after '#'"):
        parse_entries(["runs/a#"])
    assert slug("SmolLM2 + adapter/v1") == "SmolLM2-adapter-v1" and slug("///") == "model"
    assert colour(0.0)[0] == "#440154" and colour(100.0)[0] == "#fde725" and colour(150.0) == colour(100.0)


def test_site_files_links_and_determinism(runs, tmp_path):
    (runs["oracle"] / "report.html").write_text("<!DOCTYPE html><title>r</title>", encoding="utf-8")
    out = tmp_path / "site"
    paths = leaderboard([runs["oracle"], runs["random"]], out, OPTIONS, suite_view)
    index = paths["index"].read_text(encoding="utf-8")
    assert 'id="ranking"' in index and 'id="heatmap"' in index and "<script>" in index
    assert not re.search(r'(src|href)="(https?:)?//', index), "the site must not fetch anything"
    assert 'href="models/oracle.html"' in index and 'href="models/random.html"' in index
    oracle = (out / "models" / "oracle.html").read_text(encoding="utf-8")
    link = re.search(r'href="([^"]*report\.html)"', oracle).group(1)
    assert not link.startswith("/") and (out / "models" / link).resolve() == (runs["oracle"] / "report.html").resolve()
    assert "negkit report RUN_DIR" in (out / "models" / "random.html").read_text(encoding="utf-8")
    assert json.loads(paths["json"].read_text())["columns"][0]["best"] == "oracle"
    again = leaderboard([runs["oracle"], runs["random"]], tmp_path / "again", OPTIONS, suite_view)
    assert again["index"].read_bytes() == paths["index"].read_bytes()


def test_cli_writes_the_site_and_rejects_a_folder_that_is_not_a_run(runs, tmp_path, capsys):
    out = tmp_path / "site"
    assert (
        main(["leaderboard", str(runs["oracle"]), str(runs["constant"]), "--out", str(out), "--bootstrap", "50"]) == 0
    )
    assert capsys.readouterr().out.strip() == str(out / "index.html")
    empty = tmp_path / "not-a-run"
    empty.mkdir()
    assert main(["leaderboard", str(runs["oracle"]), str(empty), "--out", str(tmp_path / "x")]) == 2
    error = capsys.readouterr().err.strip()
    assert error.startswith("negkit: error: ") and str(empty) in error and "\n" not in error
    assert main(["leaderboard", str(tmp_path / "missing"), "--out", str(tmp_path / "x")]) == 2
    assert str(tmp_path / "missing") in capsys.readouterr().err


_CLICK = "document.querySelectorAll('#ranking thead th')[{index}].click()"
_MODELS = "Array.from(document.querySelectorAll('#ranking tbody tr')).map(r => r.getAttribute('data-model'))"


@pytest.mark.skipif(
    find_chromium() is None,
    reason="chromium is not installed (scripts/setup.sh installs Debian's "
    "chromium; without it the browser check cannot run)",
)
def test_browser_renders_and_the_table_sorts(runs, tmp_path):
    out = tmp_path / "site"
    condaqa = _condaqa(tmp_path / "oracle-condaqa", "oracle", [True, False, False, False])
    leaderboard(
        [
            "random=" + str(runs["random"]),
            "oracle=" + str(runs["oracle"]),
            "oracle=" + str(condaqa),
            "constant=" + str(runs["constant"]),
        ],
        out,
        OPTIONS,
        suite_view,
    )
    # columns: #, model, mean rank, scone, condaqa
    rendered = render(
        out / "index.html",
        actions=(
            _MODELS,
            _CLICK.format(index=1),
            _MODELS,
            _CLICK.format(index=3),
            _MODELS,
            _CLICK.format(index=3),
            _MODELS,
            _CLICK.format(index=4),
            _MODELS,
        ),
    )
    assert rendered.console_errors == [] and rendered.requests == []
    assert rendered.title == "negkit negation leaderboard"
    initial, by_name, scone_down, scone_up, condaqa_down = rendered.evaluated[0::2]
    assert initial == ["oracle", "constant", "random"]  # mean ranks 1.0, 2.0, 3.0
    assert by_name == ["constant", "oracle", "random"]
    assert scone_down == ["oracle", "constant", "random"] and scone_up == ["random", "constant", "oracle"]
    assert condaqa_down[0] == "oracle" and len(condaqa_down) == 3  # models without the task stay, last
    page = render(out / "models" / "oracle.html")
    assert page.console_errors == [] and page.requests == []


def test_tasks_no_suite_can_rebuild_are_left_out(runs):
    data = leaderboard_data([runs["oracle"]], OPTIONS, no_suites)  # a lookup that knows no suite
    assert data["columns"] == [] and data["skipped"] == ["scone"]


def test_rows_are_models_ranked_over_the_tasks_they_share(runs, tmp_path):
    """Issue 32, finding 19: a model run on every task and a baseline on some were ranked by mean ranks over
    different columns, "best" was starred where a model had no competitor, and rows were named by folder."""
    main_run = _scone(tmp_path / "main", "SmolLM2-135M", ["entailment"] * 6 + ["neutral"] * 2 + ["entailment"] * 2)
    _condaqa(main_run, "SmolLM2-135M", [True, True, False, False])
    data = leaderboard_data([main_run, runs["random"]], OPTIONS, suite_view)
    assert [model["name"] for model in data["models"]] == ["SmolLM2-135M", "random"]  # the model, not "main"
    assert data["models"][0]["folders"] == [str(main_run)]
    # scone: 8/10 against 5/10; condaqa has no competitor: no "best", and it does not enter the mean rank
    assert data["mean_rank"]["SmolLM2-135M"] == {"mean": 1.0, "columns": 1, "covered": 2, "of": 2}
    assert data["mean_rank"]["random"] == {"mean": 2.0, "columns": 1, "covered": 1, "of": 2}
    assert not data["cells"]["SmolLM2-135M"]["condaqa"]["best"]
    assert data["cells"]["SmolLM2-135M"]["scone"]["best"]
    # two folders of one model on the same task: each row keeps its folder's name beside the model
    again = _scone(tmp_path / "again", "random", ["entailment"] * 10)
    names = [model["name"] for model in leaderboard_data([runs["random"], again], OPTIONS, suite_view)["models"]]
    assert names == ["random (random)", "random (again)"]


def test_baselines_are_reference_rows_not_ranked_among_the_models(runs, tmp_path):
    """The majority baseline (60%) scored above a model (50%) used to be ranked second among the models; baselines
    (the backend ``baseline``: random, majority, constant) are now reference rows: compared with the best model,
    never ranked, drawn below the models in every table."""
    model_a = _scone(tmp_path / "a", "model-a", GOLD)  # 100%
    weak = ["entailment", "neutral", "entailment", "neutral", "entailment", "neutral"] + ["neutral", "entailment"] * 2
    model_b = _scone(tmp_path / "b", "model-b", weak)  # 5 of 10
    majority = _scone(tmp_path / "majority-run", "majority", ["entailment"] * 10, backend="baseline")
    constant = _scone(tmp_path / "constant-run", "constant:neutral", ["neutral"] * 10, backend="baseline")
    data = leaderboard_data([majority, model_b, constant, model_a], OPTIONS, suite_view)
    cells = {name: data["cells"][name]["scone"] for name in ("model-a", "model-b", "majority", "constant:neutral")}
    assert cells["majority"]["estimate"] == 60.0 > cells["model-b"]["estimate"] == 50.0
    assert {name: cell["rank"] for name, cell in cells.items()} == {
        "model-a": 1.0,
        "model-b": 2.0,  # second among the models, although the majority baseline scores higher
        "majority": None,
        "constant:neutral": None,
    }
    assert cells["majority"]["reference"] and not cells["model-b"]["reference"] and not cells["majority"]["best"]
    assert cells["majority"]["vs_best"]["difference"] == pytest.approx(-40.0)  # still compared with the best
    assert data["mean_rank"]["model-b"]["mean"] == 2.0 and data["mean_rank"]["majority"]["mean"] is None
    assert data["mean_rank"]["majority"]["reference"] and data["columns"][0]["best"] == "model-a"
    markdown = leaderboard_markdown(data)
    ranking = markdown.split("## Ranking")[1].split("## Per task")[0]
    lines = [line for line in ranking.splitlines() if line.startswith("| ") and line.split("|")[2].strip() != "model"]
    assert [line.split("|")[1].strip() + " " + line.split("|")[2].strip() for line in lines] == [
        "1 model-a",
        "2 model-b",
        "– constant:neutral (baseline, reference)",
        "– majority (baseline, reference)",
    ]
    assert "baselines (reference rows) against model-a: " in markdown and "ref." in markdown
    out = tmp_path / "site"
    leaderboard([str(path) for path in (majority, model_b, constant, model_a)], out, OPTIONS, suite_view)
    page = (out / "index.html").read_text()
    ranked, references = page.split('<tbody class="references">')
    assert 'data-model="model-b"' in ranked.split('id="ranking"')[1] and 'data-model="majority"' in references
    assert "reference, not ranked" in references.split("</tbody>")[0]
