"""The helpers of ``perf/bench_export_lm_eval.py`` that need neither the Harness nor a model: the Harness's own
``blimp_*`` tasks pointed at local files, their per-pair comparison (hand-made samples), the NegNLI-RTE prediction
read back, and ``--tasks`` / ``--limit`` with a suite's name."""

from __future__ import annotations

import importlib.util
import json

import pytest
from conftest import REPO_ROOT

from negkit.benchmarks.blimp import PARADIGMS

BENCHMARKS = REPO_ROOT / "perf"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("negkit_bench_export_lm_eval", BENCHMARKS / "bench_export_lm_eval.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_suite_limits_expand_a_suite_name(bench):
    tasks = ["blimp-negation", "negnli-mnli", "negnli-snli", "negnli-rte"]
    assert bench.suite_limits({"negnli": 30, "blimp-negation": 168}, tasks) == {
        "blimp-negation": 168,
        "negnli-mnli": 30,
        "negnli-snli": 30,
        "negnli-rte": 30,
    }
    assert bench.suite_limits({"negnli-rte": 9}, tasks) == {
        "blimp-negation": None,
        "negnli-mnli": None,
        "negnli-snli": None,
        "negnli-rte": 9,
    }
    assert bench.suite_limits(12, tasks[:2]) == {"blimp-negation": 12, "negnli-mnli": 12}
    assert bench.suite_limits(None, tasks[:1]) == {"blimp-negation": None}


def test_the_harness_blimp_tasks_point_at_the_local_files(bench, tmp_path):
    yaml = pytest.importorskip("yaml")
    tasks_folder, data = tmp_path / "lm_eval" / "tasks", tmp_path / "data"
    (tasks_folder / "blimp").mkdir(parents=True)
    data.mkdir()
    for paradigm in PARADIGMS:
        (tasks_folder / "blimp" / f"{paradigm}.yaml").write_text(f"dataset_name: {paradigm}\n", encoding="utf-8")
        (data / f"{paradigm}.jsonl").write_text("{}\n", encoding="utf-8")
    names = bench.write_own_blimp_tasks(tasks_folder, data, tmp_path / "include")
    assert names == [f"blimp_{paradigm}" for paradigm in PARADIGMS]
    config = yaml.safe_load((tmp_path / "include" / "blimp_npi_present_1.yaml").read_text(encoding="utf-8"))
    assert config == {
        "include": str(tasks_folder / "blimp" / "npi_present_1.yaml"),
        "task": "blimp_npi_present_1",
        "dataset_path": "json",
        "dataset_name": None,
        "dataset_kwargs": {"data_files": {"train": str((data / "npi_present_1.jsonl").resolve())}},
    }
    (data / "npi_present_2.jsonl").unlink()
    with pytest.raises(SystemExit, match="npi_present_2.jsonl not found"):
        bench.write_own_blimp_tasks(tasks_folder, data, tmp_path / "include")


def _negkit(pair: int, prediction: str, good: float, bad: float) -> dict:
    return {
        "item_id": f"blimp-npi_present_1-{pair}",
        "paradigm": "npi_present_1",
        "prediction": prediction,
        "logprob_good": good,
        "logprob_bad": bad,
    }


def _harness(pair: int, good: float, bad: float, acc: float) -> dict:
    return {
        "doc": {"pairID": str(pair), "item_id": f"blimp-npi_present_1-{pair}"},
        "acc": acc,
        "filtered_resps": [[str(good), "False"], [str(bad), "False"]],
    }


def test_own_blimp_predictions_compared_pair_by_pair(bench, tmp_path):
    negkit = [_negkit(0, "good", -10.0, -12.0), _negkit(1, "bad", -9.0, -8.0)]
    out = tmp_path / "out" / "model"
    out.mkdir(parents=True)
    lines = [_harness(0, -10.0, -12.0, 1.0), _harness(1, -7.0, -8.0, 1.0)]
    (out / "samples_blimp_npi_present_1_2026.jsonl").write_text(
        "".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8"
    )
    own = bench.own_blimp_samples(tmp_path / "out", ["blimp_npi_present_1"])
    assert sorted(own) == ["blimp-npi_present_1-0", "blimp-npi_present_1-1"]
    export = [_harness(0, -10.0, -12.0, 1.0), _harness(1, -9.0, -8.0, 0.0)]
    row = bench.compare_own_blimp(negkit, own, export)
    # pair 0: all three choose good; pair 1: negkit and the export choose bad, the Harness's own task good
    assert row == {
        "items": 2,
        "identical_predictions": 1,
        "identical_to_export": 1,
        "lm_eval_acc": 1.0,
        "max_score_diff": 1.0,
    }  # pair 1: negkit's margin -1 against the Harness's +1, about the mean
    assert "identical_to_export" not in bench.compare_own_blimp(negkit, own, None)
    with pytest.raises(SystemExit, match="lack 1 of negkit's pairs"):
        bench.compare_own_blimp(negkit + [_negkit(5, "good", -1.0, -2.0)], own, export)


def test_negnli_predictions_read_back_through_the_answer_words(bench):
    rte = {"scores": {"yes": -3.0, "no": -1.0}, "prediction": "not_entailment"}
    assert bench.negkit_choice("negnli-rte", rte) == (1, None, [-3.0, -1.0])
    mnli = {"scores": {"entailment": -3.0, "contradiction": -1.0, "neutral": -2.0}, "prediction": "contradiction"}
    assert bench.negkit_choice("negnli-mnli", mnli) == (1, None, [-3.0, -1.0, -2.0])
    scone = {"scores": {"Yes": -1.0, "No": -2.0}, "prediction": "entailment"}
    assert bench.negkit_choice("scone", scone)[0] == 0
