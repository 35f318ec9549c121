"""``negkit score nubench|nan-nli|scone`` on hand-written predictions files."""

from __future__ import annotations

import json

import pytest
from conftest import NUBENCH_FIXTURE, shared_data_path

from negkit.cli import main

FIXTURE = NUBENCH_FIXTURE


def _write(path, records):
    path.write_text("".join(json.dumps(record) + "\n" for record in records))
    return path


def test_score_nubench_runs_and_forms(tmp_path, capsys):
    # items 0 (relative_part) and 21 (non-applicable): run A both right; run B item 0 -> choice2, item 20 -> choice4
    path = _write(
        tmp_path / "p.jsonl",
        [
            {"item_id": "nubench-test-0", "prediction": 0, "prediction_norm": "choice1", "run": "A"},
            {"index": 21, "prediction": "choice1", "prediction_norm": 0, "run": "A"},
            {"item_id": "nubench-test-0", "prediction": 1, "prediction_norm": 0, "run": "B"},
            {"item_id": "nubench-test-21", "prediction": 2, "prediction_norm": 2, "run": "B"},
        ],
    )
    assert main(["score", "nubench", str(path), "--data", str(FIXTURE), "--json"]) == 0
    metrics = json.loads(capsys.readouterr().out)
    assert metrics["runs"]["A"]["acc"] == 1.0
    assert metrics["runs"]["B"]["acc"] == 0.0 and metrics["runs"]["B"]["acc_norm"] == 0.5
    # index 2 of a non-applicable item (choice1, choice3, choice4) is choice4
    assert metrics["runs"]["B"]["error_analysis"]["error_share_percent"] == {
        "choice2": 50.0,
        "choice3": 0.0,
        "choice4": 50.0,
    }
    assert metrics["runs"]["B"]["error_analysis"]["confusion_rate"] == {"relative_part": 1.0}
    # mean of 1.0 and 0.0 = 0.5; sample SD = sqrt(0.5)
    assert metrics["summary"]["acc"]["mean"] == 0.5
    assert metrics["summary"]["acc"]["sd"] == pytest.approx(0.5**0.5)


def test_score_nubench_bad_lines(tmp_path, capsys):
    path = _write(tmp_path / "p.jsonl", [{"item_id": "nubench-test-21", "prediction": 3}])
    assert main(["score", "nubench", str(path), "--data", str(FIXTURE)]) == 2
    assert "p.jsonl:1" in capsys.readouterr().err
    path = _write(tmp_path / "q.jsonl", [{"item_id": "nubench-test-999", "prediction": 0}])
    assert main(["score", "nubench", str(path), "--data", str(FIXTURE)]) == 2
    assert "unknown item" in capsys.readouterr().err


def test_score_nan_nli_and_scone(tmp_path, capsys):
    shared_data_path("nan-nli")
    shared_data_path("scone")
    # nan-000 and nan-001 are entailment pairs of the first premise
    path = _write(
        tmp_path / "nan.jsonl",
        [{"item_id": "nan-000", "prediction": "entailment"}, {"index": 1, "prediction": "Neutral"}],
    )
    assert main(["score", "nan-nli", str(path), "--json"]) == 0
    metrics = json.loads(capsys.readouterr().out)
    assert metrics["count"] == 2 and metrics["data_count"] == 258
    assert metrics["standard"]["accuracy"] == 0.5
    assert metrics["strict"] == {"correct": 0, "total": 1, "accuracy": 0.0}
    path = _write(
        tmp_path / "scone.jsonl",
        [
            {"item_id": "scone-test-no_negation-0000", "prediction": "yes"},
            {"condition": "one_scoped", "row": 0, "prediction": "contradiction"},
        ],
    )
    assert main(["score", "scone", str(path), "--json"]) == 0
    metrics = json.loads(capsys.readouterr().out)
    # no_negation row 0 is entailment (right), one_scoped row 0 is neutral (contradiction counts as neutral: right)
    assert metrics["accuracy"] == {"no_negation": 1.0, "one_scoped": 1.0, "overall": 1.0}
    path = _write(tmp_path / "bad.jsonl", [{"item_id": "nan-000", "prediction": "maybe"}])
    assert main(["score", "nan-nli", str(path)]) == 2
    assert "bad.jsonl:1" in capsys.readouterr().err
