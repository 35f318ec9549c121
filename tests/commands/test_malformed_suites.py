"""Malformed NaN-NLI, ScoNe and Thunder-NUBench data and prediction files, in `eval --data` and `score SUITE`:
one `negkit: error: FILE[:LINE]: problem` line, exit 2, nothing on stdout, no traceback."""

from __future__ import annotations

import csv
import io
import json
import shutil
from pathlib import Path

import pytest
from conftest import NUBENCH_FIXTURE
from malformed import assert_input_error

from negkit.benchmarks.nan_nli.data import NAN_OPERATIONS, NEGATION_TYPES
from negkit.benchmarks.scone.data import SCONE_CONDITIONS

FIXTURES = NUBENCH_FIXTURE
NAN_COLUMNS = (
    ["premise", "hypothesis", "label", "Construction", "Construction Subtype", "Quantification"]
    + [f"{side}-{kind}" for side in "PH" for kind in NEGATION_TYPES]
    + list(NAN_OPERATIONS)
)


def _csv_text(rows: list[list[str]]) -> str:
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows(rows)
    return buffer.getvalue()


def _nan_rows(count: int = 3) -> list[list[str]]:
    rows = [NAN_COLUMNS]
    for index in range(count):
        values = {
            "premise": f"The cat is not here {index}.",
            "hypothesis": "The cat is away.",
            "label": "entailment",
            "Construction": "verb",
            "Construction Subtype": "x",
            "Quantification": "0",
        }
        rows.append([values.get(column, "0") for column in NAN_COLUMNS])
    return rows


def _scone_rows(condition: str, count: int = 2) -> list[list[str]]:
    if condition == "one_scoped":
        return [["sentence1", "sentence2", "gold_label"]] + [[f"p{i}", f"h{i}", "neutral"] for i in range(count)]
    return [["sentence1_edited", "sentence2_edited", "gold_label_edited", "group_index"]] + [
        [f"p{i}", f"h{i}", "entailment", str(i)] for i in range(count)
    ]


@pytest.fixture
def root(tmp_path) -> Path:
    """A data root with tiny valid NaN-NLI, ScoNe and Thunder-NUBench data."""
    data = tmp_path / "data"
    (data / "nan-nli").mkdir(parents=True)
    (data / "nan-nli" / "nan.csv").write_text(_csv_text(_nan_rows()))
    for condition in SCONE_CONDITIONS:
        path = data / "scone" / "scone_nli" / "test" / f"{condition}.csv"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(_csv_text(_scone_rows(condition)))
    shutil.copytree(FIXTURES, data / "thunder-nubench")
    return data


NAN_CASES = {  # name -> (new content of nan.csv, line of the error)
    "missing-column": (lambda: _csv_text([row[:-1] for row in _nan_rows()]), 1),
    "bad-label": (lambda: _csv_text(_nan_rows()[:2] + [[*_nan_rows()[2][:2], "maybe", *_nan_rows()[2][3:]]]), 3),
    "bad-flag": (lambda: _csv_text(_nan_rows()[:2] + [[*_nan_rows()[2][:6], "yes", *_nan_rows()[2][7:]]]), 3),
    "empty": (lambda: "", None),
    "header-only": (lambda: _csv_text(_nan_rows()[:1]), None),
    "not-utf8": (lambda: _csv_text(_nan_rows()).encode().replace(b"cat is not here 1", b"c\xfft"), 3),
    "short-row": (lambda: _csv_text(_nan_rows()) + "a,b\n", 5),
    "unclosed-quote": (lambda: _csv_text(_nan_rows()) + '"never closed,x\n', None),
    "huge-label": (
        lambda: _csv_text(_nan_rows()[:1] + [[*_nan_rows()[1][:2], "x" * 2_000_000, *_nan_rows()[1][3:]]]),
        2,
    ),
}


@pytest.mark.parametrize("case", sorted(NAN_CASES))
@pytest.mark.parametrize("command", ["eval", "score"])
def test_malformed_nan_nli(command, case, root, tmp_path, capsys):
    content, line = NAN_CASES[case]
    path = root / "nan-nli" / "nan.csv"
    text = content()
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    predictions = tmp_path / "p.jsonl"
    predictions.write_text('{"item_id": "nan-000", "prediction": "entailment"}\n')
    argv = (
        ["eval", "--model", "default", "--tasks", "nan-nli", "--data", root, "--out", tmp_path / "run"]
        if command == "eval"
        else ["score", "nan-nli", predictions, "--data", root]
    )
    assert_input_error(argv, capsys, where=path, line=line)


SCONE_CASES = {
    "missing-condition": lambda folder: (folder / "two_scoped.csv").unlink(),
    "row-counts-differ": lambda folder: (folder / "no_negation.csv").write_text(
        _csv_text(_scone_rows("no_negation", 3))
    ),
    "bad-label": lambda folder: (folder / "two_scoped.csv").write_text(
        _csv_text(_scone_rows("two_scoped")).replace("entailment", "yes-ish", 1)
    ),
    "not-utf8": lambda folder: (folder / "one_scoped.csv").write_bytes(
        b"sentence1,sentence2,gold_label\n\xff,b,neutral\n"
    ),
    "bad-group-index": lambda folder: (folder / "two_scoped.csv").write_text(
        _csv_text(_scone_rows("two_scoped")).replace(",0\n", ",0.5\n")
    ),
}


@pytest.mark.parametrize("case", sorted(SCONE_CASES))
@pytest.mark.parametrize("command", ["eval", "score"])
def test_malformed_scone(command, case, root, tmp_path, capsys):
    folder = root / "scone" / "scone_nli" / "test"
    SCONE_CASES[case](folder)
    predictions = tmp_path / "p.jsonl"
    predictions.write_text('{"item_id": "scone-test-no_negation-0000", "prediction": "yes"}\n')
    argv = (
        ["eval", "--model", "default", "--tasks", "scone", "--data", root, "--out", tmp_path / "run"]
        if command == "eval"
        else ["score", "scone", predictions, "--data", root]
    )
    assert_input_error(argv, capsys, where=folder)


def _nubench_lines() -> list[dict]:
    return [json.loads(line) for line in (FIXTURES / "multiple-choice" / "test.jsonl").read_text().splitlines()]


NUBENCH_CASES = {
    "not-json": (lambda p: p.write_text("".join(json.dumps(r) + "\n" for r in _nubench_lines()[:5]) + "{oops\n"), 6),
    "missing-field": (lambda p: p.write_text(json.dumps({"index": 1}) + "\n"), 1),
    "bad-choice2-type": (
        lambda p: p.write_text(json.dumps({**_nubench_lines()[0], "choice2_type": "x" * 500}) + "\n"),
        1,
    ),
    "fractional-index": (lambda p: p.write_text(json.dumps({**_nubench_lines()[0], "index": 3.7}) + "\n"), 1),
    "infinite-index": (
        lambda p: p.write_text(
            '{"index": 1e999}\n'.replace("{", "{" + json.dumps(_nubench_lines()[0])[1:-1] + ", ", 1)
        ),
        1,
    ),
    "duplicate-index": (lambda p: p.write_text("".join(json.dumps(r) + "\n" for r in _nubench_lines()[:2] * 2)), None),
    "empty": (lambda p: p.write_text(""), None),
    "not-utf8": (lambda p: p.write_bytes(b'{"index": "\xff"}\n'), 1),
}


@pytest.mark.parametrize("case", sorted(NUBENCH_CASES))
@pytest.mark.parametrize("command", ["eval", "score"])
def test_malformed_nubench(command, case, root, tmp_path, capsys):
    breakage, line = NUBENCH_CASES[case]
    path = root / "thunder-nubench" / "multiple-choice" / "test.jsonl"
    breakage(path)
    predictions = tmp_path / "p.jsonl"
    predictions.write_text('{"index": 0, "prediction": 0}\n')
    argv = (
        ["eval", "--model", "default", "--tasks", "nubench", "--data", root, "--out", tmp_path / "run"]
        if command == "eval"
        else ["score", "nubench", predictions, "--data", root]
    )
    assert_input_error(argv, capsys, where=path, line=line)


def test_malformed_nubench_csv_and_parquet(root, tmp_path, capsys):
    folder = root / "thunder-nubench" / "multiple-choice"
    (folder / "test.jsonl").unlink()
    (folder / "test.csv").write_text('index,sentence\n1,"unclosed\n')
    argv = ["eval", "--model", "default", "--tasks", "nubench", "--data", root, "--out", tmp_path / "run"]
    assert_input_error(argv, capsys, where=folder / "test.csv")
    (folder / "test.csv").unlink()
    (folder / "test.parquet").write_bytes(b"PAR1 not really")
    assert_input_error(argv, capsys, where=folder / "test.parquet")


PREDICTION_CASES = {  # name -> (suite, line content, error fragment)
    "not-utf8": ("nan-nli", b'{"item_id": "nan-000", "prediction": "\xff"}', "not UTF-8"),
    "not-json": ("nan-nli", b"{nope", "not valid JSON"),
    "not-an-object": ("scone", b"[1, 2]", "expected a JSON object"),
    "missing-id": ("nan-nli", b'{"prediction": "entailment"}', "missing field 'item_id'"),
    "unknown-item": ("nan-nli", b'{"item_id": "nan-999", "prediction": "entailment"}', "unknown item"),
    "id-not-a-string": ("nan-nli", b'{"item_id": ["nan-000"], "prediction": "entailment"}', "expected a string"),
    "index-not-a-number": ("nan-nli", b'{"index": "abc", "prediction": "entailment"}', "expected a whole number"),
    "fractional-row": (
        "scone",
        b'{"condition": "no_negation", "row": 1.7, "prediction": "yes"}',
        "expected a whole number",
    ),
    "boolean-index": ("nan-nli", b'{"index": true, "prediction": "entailment"}', "expected a whole number"),
    "prediction-not-a-label": ("nan-nli", b'{"item_id": "nan-000", "prediction": ["entailment"]}', "expected a label"),
    "huge-prediction": (
        "scone",
        b'{"item_id": "scone-test-no_negation-0000", "prediction": "' + b"x" * 3_000_000 + b'"}',
        "is not an NLI label",
    ),
    "nubench-run-object": ("nubench", b'{"index": 0, "prediction": 0, "run": {"a": 1}}', "field 'run'"),
    "nubench-bad-choice": ("nubench", b'{"index": 0, "prediction": 9}', "out of range"),
    "nubench-runs-not-objects": (
        "nubench",
        b'{"item_id": "nubench-test-0", "runs": {"zero-shot": 3}}',
        "not an object",
    ),
}


@pytest.mark.parametrize("case", sorted(PREDICTION_CASES))
def test_malformed_prediction_lines(case, root, tmp_path, capsys):
    suite, content, fragment = PREDICTION_CASES[case]
    path = tmp_path / "p.jsonl"
    good = {
        "nan-nli": b'{"item_id": "nan-001", "prediction": "neutral"}',
        "scone": b'{"item_id": "scone-test-one_scoped-0001", "prediction": "no"}',
        "nubench": b'{"index": 1, "prediction": "choice1"}',
    }[suite]
    path.write_bytes(good + b"\n" + content + b"\n")
    assert_input_error(["score", suite, path, "--data", root], capsys, where=path, line=2, contains=fragment)


@pytest.mark.parametrize("suite", ["nan-nli", "scone", "nubench"])
def test_empty_and_duplicate_prediction_files(suite, root, tmp_path, capsys):
    path = tmp_path / "p.jsonl"
    path.write_text("")
    assert_input_error(["score", suite, path, "--data", root], capsys, where=path, contains="no predictions")
    line = {
        "nan-nli": '{"item_id": "nan-001", "prediction": "neutral"}',
        "scone": '{"item_id": "scone-test-one_scoped-0001", "prediction": "no"}',
        "nubench": '{"index": 1, "prediction": "choice1"}',
    }[suite]
    path.write_text(line + "\n" + line + "\n")
    assert_input_error(["score", suite, path, "--data", root], capsys, where=path, line=2, contains="twice")


def test_score_out_that_cannot_be_written(root, tmp_path, capsys):
    path = tmp_path / "p.jsonl"
    path.write_text('{"item_id": "nan-001", "prediction": "neutral"}\n')
    (tmp_path / "folder").mkdir()
    for out in (tmp_path / "folder", tmp_path / "p.jsonl" / "x.json", Path("/dev/null/x.json")):
        assert_input_error(["score", "nan-nli", path, "--data", root, "--out", out], capsys, where=out)


def test_score_seed_and_missing_nubench_data(root, tmp_path, capsys):
    path = tmp_path / "p.jsonl"
    path.write_text('{"item_id": "nan-001", "prediction": "neutral"}\n')
    assert_input_error(["score", "nan-nli", path, "--data", root, "--seed", "-1"], capsys, contains="--seed")
    assert_input_error(["score", "nubench", path, "--data", tmp_path / "absent"], capsys, where=tmp_path / "absent")


# -- run folders read back by `negkit compare` and `negkit report` ------------------------------------


@pytest.fixture
def run(root, tmp_path) -> Path:
    from negkit.cli import main

    out = tmp_path / "run"
    assert (
        main(
            [
                "eval",
                "--model",
                "random",
                "--tasks",
                "scone",
                "--data",
                str(root),
                "--out",
                str(out),
                "--no-progress",
                "--bootstrap",
                "0",
            ]
        )
        == 0
    )
    return out


def _sample_field(run: Path, **fields) -> None:
    path = run / "scone.samples.jsonl"
    lines = path.read_text().splitlines()
    lines[1] = json.dumps({**json.loads(lines[1]), **fields})
    path.write_text("\n".join(lines) + "\n")


RUN_CASES = {  # name -> (damage, file named)
    "results-without-task": (lambda r: (r / "scone.results.json").write_text("{}"), "scone.results.json"),
    "results-task-not-an-object": (
        lambda r: (r / "scone.results.json").write_text('{"task": 3}'),
        "scone.results.json",
    ),
    "results-not-utf8": (lambda r: (r / "scone.results.json").write_bytes(b'{"task": "\xff"}'), "scone.results.json"),
    "samples-not-utf8": (
        lambda r: (r / "scone.samples.jsonl").write_bytes(b'{"item_id": "\xff"}\n'),
        "scone.samples.jsonl",
    ),
    "samples-row-not-a-number": (lambda r: _sample_field(r, row="abc"), "scone.samples.jsonl"),
}


#: The report draws from results files and does not read a record's row number (only compare and leaderboard
#: rebuild metrics from the records), so for it that damage is no error: tested apart below.
DAMAGED_RUNS = [
    (command, case)
    for command in ("compare", "report", "leaderboard")
    for case in sorted(RUN_CASES)
    if not (command == "report" and case.startswith("samples-row"))
]


@pytest.mark.parametrize(("command", "case"), DAMAGED_RUNS)
def test_damaged_run_folder(command, case, run, tmp_path, capsys):
    damage, name = RUN_CASES[case]
    damage(run)
    argv = {
        "compare": ["compare", run, "--bootstrap", "10"],
        "report": ["report", run],
        "leaderboard": ["leaderboard", run, "--bootstrap", "10", "--out", tmp_path / "site"],
    }[command]
    assert_input_error(argv, capsys, where=run / name)


def test_report_of_a_run_whose_record_row_is_not_a_number(run, capsys):
    from negkit.cli import main

    _sample_field(run, row="abc")
    results = json.loads((run / "scone.results.json").read_text())
    del results["samples"]  # as an older run wrote it (else the samples file is refused as edited)
    (run / "scone.results.json").write_text(json.dumps(results))
    assert main(["report", str(run)]) == 0
    assert (run / "report.md").is_file() and "scone" in (run / "report.md").read_text().lower()


def test_compare_and_export_out_that_cannot_be_created(run, root, tmp_path, capsys):
    blocker = tmp_path / "blocker"
    blocker.write_text("x")
    for out in (blocker, blocker / "below", Path("/dev/null/c")):
        assert_input_error(["compare", run, "--bootstrap", "10", "--out", out], capsys, where=out)
        assert_input_error(["leaderboard", run, "--bootstrap", "10", "--out", out], capsys, where=out)
        assert_input_error(["export", "lm-eval", "--tasks", "scone", "--data", root, "--out", out], capsys, where=out)
    assert_input_error(["compare", run, "--seed", "-1"], capsys, contains="--seed")


@pytest.mark.parametrize(
    "argv",
    [
        ["score", "scone", "/dev/zero"],
        ["resolution", "stats", "/dev/zero"],
        ["resolution", "tag", "--file", "/dev/zero"],
        ["resolution", "score", "/dev/zero", "/dev/zero"],
        ["score", "tind", "/dev/urandom"],
    ],
    ids=lambda argv: " ".join(argv[:2]),
)
def test_a_device_is_not_read_forever(argv, capsys):
    if not Path(argv[-1]).exists():
        pytest.skip(f"no {argv[-1]} here")
    assert_input_error(argv, capsys, where=argv[-1])


def test_folder_names_of_bytes_that_are_not_utf8(root, tmp_path, capsys):
    """Paths are bytes: a run folder whose name is not UTF-8 is written, compared (figures included) and reported."""
    import os

    from negkit.cli import main

    run = tmp_path / os.fsdecode(b"run-\xff")
    argv = ["eval", "--model", "random", "--tasks", "scone", "--data", str(root), "--out", str(run), "--no-progress"]
    assert main(argv) == 0
    assert (
        main(["compare", str(run), str(run), "--bootstrap", "10", "--out", str(tmp_path / os.fsdecode(b"c-\xfe"))]) == 0
    )
    assert main(["report", str(run)]) == 0
    assert "Traceback" not in capsys.readouterr().err
