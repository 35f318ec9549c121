"""The sweep on the paper's splits (issue 26, item 2): Tables 11-13 on validation, Table 14 on test, run by one
`negkit nubench sweep` and combined by `negkit nubench tables`, each table naming its split; the layout checked
line by line on the fixture with a model whose answers are worked out by hand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import NUBENCH_FIXTURE
from test_nubench_sweep import EndingModel, _results_file

from negkit.benchmarks.nubench.data import load_choice_items
from negkit.benchmarks.nubench.sweep_tables import read_sweep_run
from negkit.benchmarks.nubench.task import prompt_ids
from negkit.cli import main
from negkit.commands.eval.evaluate import evaluate
from negkit.commands.eval.options import EvalOptions
from negkit.errors import NegkitError
from negkit.studies.nubench.sweep import SWEEP_SPLITS, sweep_plan, tables


def test_sweep_plan_follows_the_paper():
    assert SWEEP_SPLITS == {"prompts": "validation", "fewshot": "test"}
    assert sweep_plan() == [("validation", ["nubench-prompts"]), ("test", ["nubench-fewshot"])]
    assert sweep_plan(["fewshot"]) == [("test", ["nubench-fewshot"])]
    assert sweep_plan(["prompts", "fewshot"], "validation") == [("validation", ["nubench-prompts", "nubench-fewshot"])]


def test_paper_splits_on_the_fixture_by_hand(tmp_path):
    items = load_choice_items("validation", NUBENCH_FIXTURE) + load_choice_items("test", NUBENCH_FIXTURE)
    model = EndingModel(items)  # right exactly when the context ends with "Negation:"
    out = tmp_path / "ending"
    for split, tasks in sweep_plan():
        evaluate(
            model, tasks, EvalOptions(split=split, data=str(NUBENCH_FIXTURE), out=out, progress=False, bootstrap=0)
        )
    run = read_sweep_run(out)
    assert (run.split, run.count, run.fewshot_split, run.fewshot_count) == ("validation", 6, "test", 24)
    text = Path(tables([out], tmp_path / "tables")["report"]).read_text()
    lines = text.splitlines()
    assert "`ending` (all models, " in text and "6 validation items, 24 test items)" in text
    assert "## Table 11: prompts 1-12, zero-shot — all models, validation split" in lines
    assert "## Table 13: wording variants of prompt 7, zero-shot — validation split" in lines
    assert (
        "## Table 14: prompts 1, 7 and 11, zero-shot and 5-shot "
        "(mean ± SD over seeds 42, 1234, 3000, 5000, 7000) — test split"
    ) in lines
    # Table 11: prompts 2, 5, 7, 12 end with "Negation:" (every item right), the others never (every item wrong);
    # one model, so the Average pair repeats its values
    assert "| prompt | type | ending acc | ending acc_norm | Average acc | Average acc_norm |" in lines
    assert "| 2 | default | **1.000** | **1.000** | **1.000** | **1.000** |" in lines
    assert "| 1 | default | 0.000 | 0.000 | 0.000 | 0.000 |" in lines
    assert "| 10 | role | 0.000 | 0.000 | 0.000 | 0.000 |" in lines
    # Table 13: of 7's variants only 7 itself ends with "Negation:"
    assert "| 7 | **1.000** | **1.000** |" in lines and "| 7-5 | 0.000 | 0.000 |" in lines
    # Table 14 on the 24 test items: prompt 7 (and its five-shot contexts) right everywhere, 1 and 11 never
    assert "| ending | 7 (instruction) | **1.000** | **1.000** | **1.000** ± 0.000 | **1.000** ± 0.000 |" in lines
    assert "| ending | 1 (default) | 0.000 | 0.000 | 0.000 ± 0.000 | 0.000 ± 0.000 |" in lines
    assert "| ending | 11 (reasoning) | 0.000 | 0.000 | 0.000 ± 0.000 | 0.000 ± 0.000 |" in lines
    data = json.loads((tmp_path / "tables" / "nubench-tables.json").read_text())
    assert data["splits"] == {"nubench-prompts": "validation", "nubench-fewshot": "test"}


def test_each_table_keeps_to_one_split(tmp_path):
    prompts = {p: {"type": "?", "zero-shot": {"acc": 0.5, "acc_norm": 0.5}} for p in prompt_ids()}
    _results_file(tmp_path / "a", "nubench-prompts", "A", prompts)
    few = {
        p: {
            "type": "default",
            "zero-shot": {"acc": 0.5, "acc_norm": 0.5},
            "few-shot": {"acc": {"mean": 0.5, "sd": 0.0}, "acc_norm": {"mean": 0.5, "sd": 0.0}},
        }
        for p in ("1", "7", "11")
    }
    _results_file(tmp_path / "a", "nubench-fewshot", "A", few, num_fewshot=5, seeds=[42])
    # the fixture helper writes validation: Table 14 on validation says the paper's was test
    text = Path(tables([tmp_path / "a"], tmp_path / "out")["report"]).read_text()
    assert "(mean ± SD over seeds 42) — validation split (the paper: test)" in text
    assert "zero-shot — all models, validation split\n" in text
    # a second model whose Table 14 run is on test: refused, naming both folders
    _results_file(tmp_path / "b", "nubench-fewshot", "B", few, num_fewshot=5, seeds=[42])
    results = json.loads((tmp_path / "b" / "nubench-fewshot.results.json").read_text())
    results["data"]["split"] = "test"
    (tmp_path / "b" / "nubench-fewshot.results.json").write_text(json.dumps(results))
    with pytest.raises(NegkitError, match=r"nubench-fewshot runs \(Table 14\) are on different splits"):
        tables([tmp_path / "a", tmp_path / "b"], tmp_path / "out")


def test_sweep_command_runs_each_table_on_its_split(tmp_path, capsys):
    out = tmp_path / "run"
    argv = ["nubench", "sweep", "--model", "random", "--data", str(NUBENCH_FIXTURE), "--out", str(out)]
    assert main([*argv, "--no-progress", "--bootstrap", "0", "--seed", "42", "--num-fewshot", "1"]) == 0
    text = capsys.readouterr().out
    assert "nubench-prompts (validation split):" in text and "nubench-fewshot (test split):" in text
    assert "1-shot over seeds 42, 24 items" in text
    run = read_sweep_run(out)
    assert (run.split, run.fewshot_split) == ("validation", "test")
    assert "--split validation" in json.loads((out / "nubench-prompts.results.json").read_text())["command"]
    assert "--split test" in json.loads((out / "nubench-fewshot.results.json").read_text())["command"]
