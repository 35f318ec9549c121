"""``negkit nubench results`` (issue 26, item 4): Tables 5, 15 and 6 / 17 from run folders, checked against
hand-worked numbers and, end to end, on the fixture's test split."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import NUBENCH_FIXTURE
from nubench_models import EndingModel

from negkit.benchmarks.nubench.data import load_choice_items
from negkit.benchmarks.nubench.results_tables import pooled_error_analysis, results_tables
from negkit.cli import main
from negkit.commands.eval.evaluate import evaluate
from negkit.commands.eval.options import EvalOptions
from negkit.errors import NegkitError

TYPES = ("relative_part", "pp_part", "compound_part", "adverb_part")


def _run(acc, norm, errors, shares, confusion):
    analysis = {
        "error_rate": round(1 - acc, 10),
        "errors": errors,
        "error_share_percent": dict(zip(("choice2", "choice3", "choice4"), shares)),
        "confusion_rate": dict(zip(TYPES, confusion)),
    }
    return {"count": 10, "acc": acc, "acc_norm": norm, "error_analysis": analysis}


def _write(folder: Path, task: str, name: str, runs: dict, split="test", adapter=False, **metrics) -> Path:
    folder.mkdir(parents=True)
    model = {"name": name, "extra": {"adapter_sha256": "ab12"} if adapter else {}}
    results = {
        "task": {"task": task},
        "model": model,
        "data": {"split": split, "count": 10},
        "metrics": {"count": 10, "runs": runs, **metrics},
    }
    (folder / f"{task}.results.json").write_text(json.dumps(results))
    return folder


def _hand_made(tmp_path: Path) -> dict[str, Path]:
    zero = {"zero-shot": _run(0.6, 0.7, 4, (50, 25, 25), (0.5, 0.25, 0.0, 1.0))}
    few = {
        "seed-42": _run(0.6, 0.6, 4, (50, 25, 25), (0.5, 0.0, 0.0, 0.0)),
        "seed-1234": _run(0.8, 0.9, 2, (100, 0, 0), (0.25, 0.0, 0.0, 0.0)),
    }
    sweep = {
        "1/zero-shot": _run(0.1, 0.1, 9, (0, 100, 0), (0, 0, 0, 0)),  # prompt 1: not in these tables
        "7/zero-shot": _run(0.5, 0.5, 5, (20, 40, 40), (0, 0, 0, 0)),
        "7/seed-42": _run(0.5, 0.5, 5, (20, 40, 40), (0, 0, 0, 0)),
        "7/seed-1234": _run(0.7, 0.5, 3, (0, 100, 0), (0, 0, 0, 0)),
    }

    def sft(acc, errors, shares):
        return {"zero-shot": _run(acc, acc - 0.1, errors, shares, (0, 0, 0, 0))}

    return {
        "a0": _write(tmp_path / "a0", "nubench", "A", zero, prompt_id="7", num_fewshot=0),
        "a5": _write(tmp_path / "a5", "nubench", "A", few, prompt_id="7", num_fewshot=5, seeds=[42, 1234]),
        "asft": _write(
            tmp_path / "asft", "nubench", "A", sft(0.9, 1, (0, 100, 0)), adapter=True, prompt_id="7", num_fewshot=0
        ),
        "b": _write(tmp_path / "b", "nubench-fewshot", "B", sweep, num_fewshot=5, seeds=[42, 1234], prompts={}),
        "merged": _write(
            tmp_path / "merged", "nubench", "hf:runs/merged", sft(1.0, 0, (0, 0, 0)), prompt_id="7", num_fewshot=0
        ),
    }


def test_pooled_error_analysis_by_hand():
    runs = [_run(0.6, 0.6, 4, (50, 25, 25), (0.5, 0, 0, 0)), _run(0.8, 0.9, 2, (100, 0, 0), (0.25, 0, 0, 0))]
    pooled = pooled_error_analysis(runs)
    # error rate (0.4 + 0.2) / 2; choice2 (4 x 50 + 2 x 100) / 6 errors = 66.67%; relative_part (0.5 + 0.25) / 2
    assert pooled["error_rate"] == pytest.approx(0.3) and pooled["errors"] == 6
    assert pooled["error_share_percent"]["choice2"] == pytest.approx(400 / 6)
    assert pooled["error_share_percent"]["choice3"] == pytest.approx(100 / 6)
    assert pooled["confusion_rate"]["relative_part"] == pytest.approx(0.375)


def test_tables_5_15_6_by_hand(tmp_path, capsys):
    runs = _hand_made(tmp_path)
    argv = ["nubench", "results", *(str(runs[k]) for k in ("a0", "a5", "asft", "b"))]
    assert main([*argv, "--sft", f"B={runs['merged']}", "--out", str(tmp_path / "out")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "## Table 5: zero-shot and 5-shot — test split" in lines
    header = "| model | zero-shot acc | zero-shot acc_norm | 5-shot acc (mean ± SD) | 5-shot acc_norm (mean ± SD) |"
    assert header in lines
    # A 5-shot: acc (0.6 + 0.8) / 2 = 0.7, SD sqrt(2 x 0.1² / 1) = 0.141; acc_norm 0.75, SD sqrt(2 x 0.15²) = 0.212
    assert "| A | **0.600** | **0.700** | **0.700** ± 0.141 | **0.750** ± 0.212 |" in lines
    # B from its Table 14 sweep: prompt 7 zero-shot 0.5; 5-shot acc (0.5 + 0.7) / 2 = 0.6, acc_norm 0.5 both seeds
    assert "| B | 0.500 | 0.500 | 0.600 ± 0.141 | 0.500 ± 0.000 |" in lines
    assert "## Table 15: before and after SFT — test split" in lines
    # A's SFT run carries its adapter; B's is the merged model given with --sft B=...
    assert "| A | **0.600** | **0.700** | **0.700** ± 0.141 | **0.750** ± 0.212 | 0.900 | 0.800 |" in lines
    assert "| B | 0.500 | 0.500 | 0.600 ± 0.141 | 0.500 ± 0.000 | **1.000** | **0.900** |" in lines
    assert "## Tables 6 / 17: error analysis — zero-shot, test split" in lines
    assert "| A | 0.400 | 50.0 | 25.0 | 25.0 | 0.500 | 0.250 | 0.000 | 1.000 |" in lines
    assert "## Tables 6 / 17: error analysis — 5-shot (the seeds' answers pooled), test split" in lines
    assert "| A | 0.300 | 66.7 | 16.7 | 16.7 | 0.375 | 0.000 | 0.000 | 0.000 |" in lines
    # B: (0.5 + 0.3) / 2 = 0.4; choice2 (5 x 20) / 8 = 12.5%, choice3 (5 x 40 + 3 x 100) / 8 = 62.5%
    assert "| B | 0.400 | 12.5 | 62.5 | 25.0 | 0.000 | 0.000 | 0.000 | 0.000 |" in lines
    assert "## Tables 6 / 17: error analysis — after SFT (zero-shot), test split" in lines
    data = json.loads((tmp_path / "out" / "nubench-results.json").read_text())
    assert list(data["models"]) == ["A", "B"] and set(data["models"]["B"]) == {"zero-shot", "few-shot", "sft"}


def test_refusals(tmp_path):
    runs = _hand_made(tmp_path)
    with pytest.raises(NegkitError, match="A has two zero-shot runs"):
        results_tables([str(runs["a0"]), str(runs["a0"])], tmp_path / "out")
    _write(tmp_path / "val", "nubench", "V", {"zero-shot": _run(0.5, 0.5, 5, (0, 0, 100), (0,) * 4)}, "validation")
    with pytest.raises(NegkitError, match="different splits"):
        results_tables([str(runs["a0"]), str(tmp_path / "val")], tmp_path / "out")
    _write(tmp_path / "p3", "nubench", "P", {"zero-shot": _run(0.5, 0.5, 5, (0, 0, 100), (0,) * 4)}, prompt_id="3")
    with pytest.raises(NegkitError, match="prompt 3; Tables 5, 6, 15 and 17 are prompt 7's"):
        results_tables([str(tmp_path / "p3")], tmp_path / "out")
    (tmp_path / "empty").mkdir()
    with pytest.raises(NegkitError, match="neither nubench.results.json nor nubench-fewshot.results.json"):
        results_tables([str(tmp_path / "empty")], tmp_path / "out")


def test_on_the_fixture_end_to_end(tmp_path, capsys):
    items = load_choice_items("validation", NUBENCH_FIXTURE) + load_choice_items("test", NUBENCH_FIXTURE)
    model = EndingModel(items)  # prompt 7 ends with "Negation:": every test item right, zero- and few-shot
    for folder, shots in (("zero", 0), ("few", 1)):
        options = EvalOptions(
            data=str(NUBENCH_FIXTURE), num_fewshot=shots, out=tmp_path / folder, progress=False, bootstrap=0
        )
        evaluate(model, ["nubench"], options)
    assert (
        main(["nubench", "results", str(tmp_path / "zero"), str(tmp_path / "few"), "--out", str(tmp_path / "t")]) == 0
    )
    lines = capsys.readouterr().out.splitlines()
    assert "## Table 5: zero-shot and 1-shot — test split" in lines
    assert "| ending | **1.000** | **1.000** | **1.000** ± 0.000 | **1.000** ± 0.000 |" in lines
    assert "| ending | 0.000 | 0.0 | 0.0 | 0.0 | 0.000 | 0.000 | 0.000 | 0.000 |" in lines  # no errors at all
    assert "Table 15" not in "\n".join(lines)  # no run after SFT
