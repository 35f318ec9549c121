"""Thunder-NUBench prompt sweep (paper Tables 11-14): the sweep tasks, their sharing, and the combined tables, with
hand-computed numbers on the hand-written fixture and the random baseline."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import NUBENCH_FIXTURE
from nubench_models import EndingModel

from negkit.benchmarks.nubench.sweep_tables import read_sweep_run, sweep_tables_data, sweep_tables_markdown
from negkit.benchmarks.nubench.sweep_tasks import sweep_prompt_table
from negkit.benchmarks.nubench.task import prompt_ids
from negkit.cli import main
from negkit.commands.eval.evaluate import evaluate
from negkit.commands.eval.options import EvalOptions
from negkit.studies.nubench.sweep import SWEEP_SPLIT, sweep_tasks, tables

FIXTURE = NUBENCH_FIXTURE
#: The prompts whose text ends with "Negation:" (the fake model below answers those right).
NEGATION_PROMPTS = {"2", "5", "7", "12"}


def _validation_items():
    from negkit.benchmarks.nubench.data import load_choice_items

    return load_choice_items("validation", FIXTURE)


def test_prompt_table_mean_and_sd_by_hand():
    runs = {"7/zero-shot": {"acc": 0.5, "acc_norm": 0.25}}
    for seed, value in zip((42, 1234, 3000, 5000, 7000), (0.5, 0.7, 0.6, 0.5, 0.7)):
        runs[f"7/seed-{seed}"] = {"acc": value, "acc_norm": 1.0}
    table = sweep_prompt_table(runs, ["7"], (42, 1234, 3000, 5000, 7000))
    assert table["7"]["type"] == "instruction"
    assert table["7"]["zero-shot"] == {"acc": 0.5, "acc_norm": 0.25}
    few = table["7"]["few-shot"]
    # mean 3.0 / 5 = 0.6; squared deviations 0.01, 0.01, 0, 0.01, 0.01 -> sample variance 0.04 / 4 = 0.01, SD 0.1
    assert few["acc"]["mean"] == pytest.approx(0.6) and few["acc"]["sd"] == pytest.approx(0.1)
    assert few["acc_norm"] == {"mean": 1.0, "sd": 0.0}


def test_sweep_on_the_fixture_by_hand(tmp_path):
    model = EndingModel(_validation_items())
    results = evaluate(
        model,
        ["nubench-prompts", "nubench-fewshot"],
        EvalOptions(split=SWEEP_SPLIT, data=str(FIXTURE), out=tmp_path, progress=False, bootstrap=0),
    )
    prompts, fewshot = (result["metrics"] for result in results)
    assert list(prompts["prompts"]) == prompt_ids()
    for prompt, entry in prompts["prompts"].items():
        expected = 1.0 if prompt in NEGATION_PROMPTS else 0.0
        assert entry["zero-shot"] == {"acc": expected, "acc_norm": expected}, prompt
    # every wrong answer is choice3
    assert prompts["runs"]["1/zero-shot"]["error_analysis"]["error_share_percent"]["choice3"] == 100.0
    # Table 14: prompt 7's five-shot contexts still end with "Negation:"; 1 and 11 never do
    assert fewshot["prompts"]["7"]["few-shot"]["acc"] == {"mean": 1.0, "sd": 0.0}
    assert fewshot["prompts"]["1"]["few-shot"]["acc"] == {"mean": 0.0, "sd": 0.0}
    assert [run for run in fewshot["runs"]][:6] == [
        "1/zero-shot",
        "1/seed-42",
        "1/seed-1234",
        "1/seed-3000",
        "1/seed-5000",
        "1/seed-7000",
    ]
    # 17 prompts x (5 items x 4 candidates + 1 non-applicable item x 3) = 391 requests, every one computed
    assert results[0]["requests"] == {"total": 391, "unique": 391, "computed": 391, "from_store": 0}
    # the zero-shot requests of prompts 1, 7 and 11 (3 x 23 = 69) come from the run store in Table 14's task
    assert results[1]["requests"]["from_store"] == 69
    assert model.asked == 391 + results[1]["requests"]["computed"]
    # each run's record holds the exact prompt it was asked with
    record = json.loads((tmp_path / "nubench-prompts.samples.jsonl").read_text().splitlines()[0])
    assert record["runs"]["7-5/zero-shot"]["prompt"].endswith("\nInput: " + record["sentence"] + "\nOutput:")


def test_sweep_equals_one_run_per_prompt_with_the_random_baseline(tmp_path):
    options = EvalOptions(split=SWEEP_SPLIT, data=str(FIXTURE), out=tmp_path / "sweep", progress=False, bootstrap=50)
    [swept] = evaluate("random", sweep_tasks(["prompts"]), options)
    records = [
        json.loads(line) for line in (tmp_path / "sweep" / "nubench-prompts.samples.jsonl").read_text().splitlines()
    ]
    for prompt in ("1", "7-3", "12"):
        [single] = evaluate(
            "random",
            ["nubench"],
            EvalOptions(
                data=str(FIXTURE), split="validation", prompt=prompt, out=tmp_path / prompt, progress=False, bootstrap=0
            ),
        )
        assert swept["metrics"]["runs"][f"{prompt}/zero-shot"]["acc"] == single["metrics"]["runs"]["zero-shot"]["acc"]
        one = [json.loads(line) for line in (tmp_path / prompt / "nubench.samples.jsonl").read_text().splitlines()]
        assert [r["runs"]["zero-shot"]["prediction_norm"] for r in one] == [
            r["runs"][f"{prompt}/zero-shot"]["prediction_norm"] for r in records
        ]
    interval = swept["metrics"]["intervals"]["runs.7/zero-shot.acc"]
    assert interval["ci"][0] <= swept["metrics"]["runs"]["7/zero-shot"]["acc"] <= interval["ci"][1]


def _results_file(folder: Path, task: str, name: str, prompts: dict, **extra) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    results = {
        "task": {"task": task},
        "model": {"name": name},
        "data": {"split": "validation", "count": 6},
        "metrics": {"prompts": prompts, **extra},
    }
    (folder / f"{task}.results.json").write_text(json.dumps(results))


def test_tables_by_hand(tmp_path):
    # model A: prompt n has acc n/20 and acc_norm 0.5; model B: acc (13 - n)/20 and acc_norm 0.25 (variants: 0.1)
    def prompts(value, norm):
        return {p: {"type": "?", "zero-shot": {"acc": value(p), "acc_norm": norm}} for p in prompt_ids()}

    number = lambda p: int(p) if p.isdigit() else 13  # noqa: E731
    _results_file(tmp_path / "a", "nubench-prompts", "A", prompts(lambda p: number(p) / 20, 0.5))
    _results_file(
        tmp_path / "b", "nubench-prompts", "B", prompts(lambda p: (13 - number(p)) / 20 if p.isdigit() else 0.1, 0.25)
    )
    few = {
        p: {
            "type": t,
            "zero-shot": {"acc": z, "acc_norm": z},
            "few-shot": {"acc": {"mean": m, "sd": 0.1}, "acc_norm": {"mean": m, "sd": 0.2}},
        }
        for p, t, z, m in (("1", "default", 0.3, 0.6), ("7", "instruction", 0.4, 0.5), ("11", "reasoning", 0.2, 0.7))
    }
    _results_file(tmp_path / "a", "nubench-fewshot", "A", few, num_fewshot=5, seeds=[42, 1234, 3000, 5000, 7000])
    files = tables([("small", tmp_path / "a"), ("small", tmp_path / "b")], tmp_path / "out")
    text = Path(files["report"]).read_text()
    lines = text.splitlines()
    # Table 11: prompt 12 is A's best acc (12/20 = 0.600), prompt 1 B's (12/20); the average 13/40 = 0.325 ties
    assert "| 1 | default | 0.050 | **0.500** | **0.600** | **0.250** | **0.325** | **0.375** |" in lines
    assert "| 12 | reasoning | **0.600** | **0.500** | 0.050 | **0.250** | **0.325** | **0.375** |" in lines
    # Table 13: the small group's average of prompt 7: (0.35 + 0.30) / 2 = 0.325; each variant (0.65 + 0.1) / 2 = 0.375
    assert "| 7 | 0.325 | **0.375** |" in lines and "| 7-1 | **0.375** | **0.375** |" in lines
    # Table 14: prompt 11 has A's best five-shot acc, prompt 7 its best zero-shot
    assert "| A | 11 (reasoning) | 0.200 | 0.200 | **0.700** ± 0.100 | **0.700** ± 0.200 |" in lines
    assert "| A | 7 (instruction) | **0.400** | **0.400** | 0.500 ± 0.100 | 0.500 ± 0.200 |" in lines
    assert "Table 11: prompts 1-12, zero-shot — small" in text and "Table 12" not in text
    page = Path(files["html"]).read_text()
    assert "<td><strong>0.325</strong></td>" in page and "Table 14" in page  # a bold number is right-aligned too
    data = json.loads(Path(files["tables"]).read_text())
    assert data["prompt_tables"]["small"]["7"]["average"] == {
        "acc": pytest.approx(0.325),
        "acc_norm": pytest.approx(0.375),
    }


def test_tables_groups_and_errors(tmp_path, capsys):
    prompts = {p: {"type": "?", "zero-shot": {"acc": 0.5, "acc_norm": 0.5}} for p in prompt_ids()}
    for name in ("a", "b"):
        _results_file(tmp_path / name, "nubench-prompts", name.upper(), prompts)
    assert (
        main(
            [
                "nubench",
                "tables",
                "--group",
                "3-4B",
                str(tmp_path / "a"),
                "--group",
                "7-8B",
                str(tmp_path / "b"),
                "--out",
                str(tmp_path / "out"),
            ]
        )
        == 0
    )
    text = capsys.readouterr().out
    assert "Table 11: prompts 1-12, zero-shot — 3-4B" in text and "Table 12: prompts 1-12, zero-shot — 7-8B" in text
    assert "| prompt | 3-4B average acc | 3-4B average acc_norm | 7-8B average acc | 7-8B average acc_norm |" in text
    (tmp_path / "empty").mkdir()
    assert main(["nubench", "tables", str(tmp_path / "empty"), "--out", str(tmp_path / "out")]) == 2
    assert "neither nubench-prompts.results.json nor nubench-fewshot.results.json" in capsys.readouterr().err
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "nubench-prompts.results.json").write_text('{"task": {}, "metrics": {}}')
    assert main(["nubench", "tables", str(tmp_path / "bad"), "--out", str(tmp_path / "out")]) == 2
    assert "bad/nubench-prompts.results.json: no 'metrics.prompts' table" in capsys.readouterr().err


def test_sweep_command_end_to_end(tmp_path, capsys):
    out = tmp_path / "run"
    assert (
        main(
            [
                "nubench",
                "sweep",
                "--model",
                "random",
                "--data",
                str(FIXTURE),
                "--out",
                str(out),
                "--no-progress",
                "--bootstrap",
                "0",
                "--seed",
                "42",
            ]
        )
        == 0
    )
    text = capsys.readouterr().out
    assert "nubench-prompts (validation split):" in text and "5-shot over seeds 42, 24 items" in text
    run = read_sweep_run(out)
    assert run.split == "validation" and run.fewshot_split == "test" and run.fewshot["seeds"] == [42]
    markdown = sweep_tables_markdown(sweep_tables_data([run]))
    assert "## Table 14: prompts 1, 7 and 11, zero-shot and 5-shot (mean ± SD over seeds 42)" in markdown
    assert (
        main(
            [
                "nubench",
                "sweep",
                "--model",
                "random",
                "--tables",
                "prompts",
                "--seed",
                "1",
                "--data",
                str(FIXTURE),
                "--out",
                str(out),
            ]
        )
        == 2
    )
    assert "--seed changes nothing without the fewshot sweep" in capsys.readouterr().err


def test_table_14_says_when_models_differ_in_shots(tmp_path):
    few = {
        p: {
            "type": "default",
            "zero-shot": {"acc": 0.5, "acc_norm": 0.5},
            "few-shot": {"acc": {"mean": 0.5, "sd": 0.0}, "acc_norm": {"mean": 0.5, "sd": 0.0}},
        }
        for p in ("1", "7", "11")
    }
    _results_file(tmp_path / "a", "nubench-fewshot", "A", few, num_fewshot=5, seeds=[42, 1234])
    _results_file(tmp_path / "b", "nubench-fewshot", "B", few, num_fewshot=1, seeds=[42])
    text = Path(tables([tmp_path / "a", tmp_path / "b"], tmp_path / "out")["report"]).read_text()
    assert "## Table 14: prompts 1, 7 and 11, zero-shot and k-shot (mean ± SD over each model's seeds" in text
    assert "| A | 1 (default) | 5 | 42, 1234 | **0.500** |" in text and "| B | 11 (default) | 1 | 42 |" in text
    assert "Table 11" not in text and "Table 13" not in text  # no prompt sweep among the runs
