"""TIND Figure 2 (``negkit tind transfer-train`` / ``transfer-matrix``) on a tiny random model and invented
TIND-format data; the matrix numbers against hand-computed cases."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("peft")

from tiny_models import save_tiny_causal, synthetic_truth_items  # noqa: E402

from negkit.benchmarks.tind.training import TindFilter  # noqa: E402
from negkit.cli import main  # noqa: E402
from negkit.errors import NegkitError  # noqa: E402
from negkit.kit.training import FinetuneOptions  # noqa: E402
from negkit.studies.tind.transfer import (  # noqa: E402
    TransferOptions,
    transfer_matrix,
    transfer_test_sample,
    transfer_train,
)
from negkit.studies.tind.transfer_metrics import transfer_numbers  # noqa: E402

QUICK = dict(max_steps=2, batch_size=4, save_steps=1, logging_steps=1, progress=False, learning_rate=1e-3)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> Path:
    return save_tiny_causal(tmp_path_factory.mktemp("tiny") / "model")


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> Path:
    from negkit.benchmarks.tind.data import write_tind_jsonl

    folder = tmp_path_factory.mktemp("tind-transfer")
    items = synthetic_truth_items(groups_per_pattern=3, patterns=(1, 2, 5))
    write_tind_jsonl(items, folder / "train.jsonl", extended=True)
    write_tind_jsonl(items, folder / "test.jsonl", extended=True)
    return folder


def options(data: Path, out: Path, **extra) -> TransferOptions:
    recipe = FinetuneOptions(train="tind", data=str(data), affirmative_first=100, **QUICK)
    return TransferOptions(
        out=out, finetune=recipe, **{"patterns": (1, 2), "test_groups": 2, "test_per_group": 4, **extra}
    )


def test_transfer_train_scores_every_row_and_skips_what_is_done(tiny, data, tmp_path):
    out = tmp_path / "transfer"
    statuses = transfer_train(f"hf:{tiny}", options(data, out))
    assert statuses == {"base": "complete", "pattern-01": "complete", "pattern-02": "complete"}
    record = json.loads((out / "pattern-02" / "adapter" / "negkit_training.json").read_text())
    assert record["options"]["subset"]["patterns"] == [2]
    assert record["options"]["affirmative_first"] == 12  # capped at pattern 2's 12 affirmative training sentences
    predictions = json.loads((out / "pattern-01" / "predictions.json").read_text())
    assert predictions["sentences"] == 24  # 2 groups x 4 sentences of each of the 3 patterns
    assert {row["pattern_id"] for row in predictions["records"]} == {1, 2, 5}
    assert "sentence" not in predictions["records"][0] and predictions["adapter_weights_sha256"]
    plan = json.loads((out / "transfer.json").read_text())
    assert plan["command"].startswith(f"negkit tind transfer-train --model hf:{tiny} --out {out} --patterns 1,2")
    assert "--affirmative-first 100" in plan["command"]
    # done rows are skipped; a removed prediction file is scored again, and only it
    stamps = {row: (out / row / "predictions.json").stat().st_mtime_ns for row in statuses}
    (out / "pattern-01" / "predictions.json").unlink()
    transfer_train(f"hf:{tiny}", options(data, out))
    assert (out / "base" / "predictions.json").stat().st_mtime_ns == stamps["base"]
    assert (out / "pattern-02" / "predictions.json").stat().st_mtime_ns == stamps["pattern-02"]
    assert json.loads((out / "pattern-01" / "predictions.json").read_text())["records"] == predictions["records"]
    with pytest.raises(NegkitError, match="another plan.*test_groups"):
        transfer_train(f"hf:{tiny}", options(data, out, test_groups=3))

    numbers = transfer_matrix(out, resamples=200)
    assert numbers["rows"] == ["base", "pattern-01", "pattern-02"] and numbers["columns"] == ["#01", "#02", "#05"]
    assert numbers["cells"]["base"]["#05"]["sentences"] == 8 and numbers["cells"]["base"]["#05"]["groups"] == 2
    assert numbers["summary"]["pattern-02"]["trained_pattern"] == "#02"
    assert set(numbers["differences"]) == {"pattern-01", "pattern-02"}
    assert (out / "matrix.md").read_text().startswith("# TIND Figure 2")
    assert (out / "matrix.svg").read_text().startswith("<svg") and (out / "matrix.png").read_bytes()[:4] == b"\x89PNG"
    assert json.loads((out / "matrix.json").read_text())["missing"] == []


def test_all_row_trains_on_every_pattern(tiny, data, tmp_path):
    """Figure 2's "All" row: one more fine-tuning with no pattern filter, scored on the same per-pattern sample; in
    the matrix its summary has no diagonal and the mean over every column."""
    out = tmp_path / "all"
    statuses = transfer_train(f"hf:{tiny}", options(data, out, patterns=(), all_patterns=True, base=False))
    assert statuses == {"all": "complete"}
    record = json.loads((out / "all" / "adapter" / "negkit_training.json").read_text())
    assert record["options"]["subset"]["patterns"] == []
    # every sentence of the three patterns (72), after the curriculum's 36 affirmative ones (capped at all of them)
    assert record["options"]["affirmative_first"] == 36 and record["data"]["train"]["examples"] == 72 + 36
    plan = json.loads((out / "transfer.json").read_text())
    assert plan["all_row"] is True and "--patterns none" in plan["command"] and "--all-row" in plan["command"]
    assert plan["patterns"] == []
    transfer_train(f"hf:{tiny}", options(data, out, patterns=(1,), base=False))  # a pattern row added later
    assert json.loads((out / "transfer.json").read_text())["all_row"] is True
    numbers = transfer_matrix(out, resamples=100, plots=False)
    assert numbers["rows"] == ["pattern-01", "all"] and numbers["missing"] == []
    cells = numbers["cells"]["all"]
    summary = numbers["summary"]["all"]
    assert summary["trained_pattern"] is None and summary["diagonal"] is None
    assert summary["off_diagonal_columns"] == 3
    assert summary["off_diagonal_mean"] == round(sum(cells[c]["accuracy"] for c in ("#01", "#02", "#05")) / 3, 2)
    assert "| trained on all |" in (out / "matrix.md").read_text()
    with pytest.raises(NegkitError, match="patterns are 1 to 11"):
        transfer_train(f"hf:{tiny}", options(data, tmp_path / "none", patterns=()))


def test_parallel_jobs_give_the_sequential_answers(tiny, data, tmp_path):
    one = transfer_train(f"hf:{tiny}", options(data, tmp_path / "one", base=False))
    two = transfer_train(f"hf:{tiny}", options(data, tmp_path / "two", base=False, jobs=2))
    assert one == two == {"pattern-01": "complete", "pattern-02": "complete"}
    for row in one:
        left = json.loads((tmp_path / "one" / row / "predictions.json").read_text())
        right = json.loads((tmp_path / "two" / row / "predictions.json").read_text())
        assert left["records"] == right["records"]


def test_test_sample_is_per_pattern_and_seeded(data):
    recipe = FinetuneOptions(train="tind", data=str(data))
    sample = transfer_test_sample(TransferOptions(finetune=recipe, test_groups=2, test_per_group=3))
    groups = {item.group_key for item in sample}
    assert len(groups) == 6 and len(sample) == 18
    assert sample == transfer_test_sample(TransferOptions(finetune=recipe, test_groups=2, test_per_group=3))
    whole = transfer_test_sample(TransferOptions(finetune=recipe, test_groups=5, test_per_group=None))
    assert len(whole) == 72  # every group of every pattern, whole


def test_bad_options_are_refused(tiny, data, tmp_path):
    with pytest.raises(NegkitError, match="patterns are 1 to 11"):
        transfer_train(f"hf:{tiny}", options(data, tmp_path / "x", patterns=(12,)))
    with pytest.raises(NegkitError, match="choose each run's pattern"):
        bad = options(data, tmp_path / "x")
        bad.finetune.subset = TindFilter(patterns=(1,))
        transfer_train(f"hf:{tiny}", bad)
    with pytest.raises(NegkitError, match="no transfer.json"):
        transfer_matrix(tmp_path / "nothing")


def test_matrix_numbers_by_hand():
    def rows(pattern, group, outcomes):
        return [{"pattern_id": pattern, "group": group, "label": True, "prediction": right} for right in outcomes]

    base = rows(1, 0, [True, False]) + rows(1, 1, [False, False]) + rows(2, 0, [True, True, False, False])
    tuned = rows(1, 0, [True, True]) + rows(1, 1, [True, False]) + rows(2, 0, [False, False, False, False])
    numbers = transfer_numbers({"base": base, "pattern-01": tuned}, trained={"pattern-01": 1}, resamples=200)
    cells = numbers["cells"]
    assert cells["base"]["#01"]["accuracy"] == 25.0 and cells["base"]["#02"]["accuracy"] == 50.0
    assert cells["pattern-01"]["#01"]["accuracy"] == 75.0 and cells["pattern-01"]["#02"]["accuracy"] == 0.0
    assert cells["base"]["#01"]["groups"] == 2 and cells["base"]["#02"]["sentences"] == 4
    low, high = cells["pattern-01"]["#01"]["ci"]
    assert 50.0 <= low <= 75.0 <= high <= 100.0  # groups at 100% and 50%: resamples give 50, 75 or 100
    differences = numbers["differences"]["pattern-01"]
    assert differences["#01"]["difference"] == 50.0 and differences["#02"]["difference"] == -50.0
    summary = numbers["summary"]["pattern-01"]
    assert summary == {
        "trained_pattern": "#01",
        "diagonal": 75.0,
        "off_diagonal_mean": 0.0,
        "off_diagonal_columns": 1,
        "off_diagonal_minus_base": -50.0,
        "diagonal_minus_base": 50.0,
    }


def test_command_line(tiny, data, tmp_path, capsys):
    out = tmp_path / "cli"
    code = main(
        [
            "tind",
            "transfer-train",
            "--model",
            f"hf:{tiny}",
            "--data",
            str(data),
            "--patterns",
            "5",
            "--out",
            str(out),
            "--test-groups",
            "1",
            "--test-per-group",
            "4",
            "--max-steps",
            "1",
            "--batch-size",
            "4",
            "--no-progress",
            "--no-base",
        ]
    )
    assert code == 0 and '"pattern-05": "complete"' in capsys.readouterr().out
    assert main(["tind", "transfer-matrix", str(out), "--no-plots"]) == 0
    assert (out / "matrix.md").is_file() and not (out / "matrix.svg").exists()
    assert main(["tind", "transfer-matrix", str(tmp_path / "none")]) == 2
