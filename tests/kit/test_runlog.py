"""The run log (negkit.kit.runlog): the committed JSON Schemas are what the models give, every run file of the
layout fixture reads as its model, a run folder read and written back gives the same bytes, older layouts read,
and a malformed file is one error naming the file, the line of a samples record and the field."""

from __future__ import annotations

import json

import pytest
from conftest import REPO_ROOT, shared_data_path
from layout_runs import FIXTURE, RUNS, eval_arguments

from negkit.errors import InputFormatError
from negkit.kit.harness.layout import LAYOUT_VERSION
from negkit.kit.runlog import (
    ChoiceSample,
    PairSample,
    RunLog,
    SampleRecord,
    TaskLog,
    TruthSample,
    read_run_log,
    read_task_log,
    run_log,
    sample_model,
    sample_record,
    task_log,
)
from negkit.kit.runlog.schema import schema_text, schemas
from negkit.kit.runs import read_run, read_run_results, read_samples

SCHEMA_FOLDER = REPO_ROOT / "docs" / "schema"


@pytest.mark.parametrize("name", sorted(schemas()))
def test_committed_schemas_are_what_the_models_give(name):
    committed = (SCHEMA_FOLDER / name).read_text(encoding="utf-8")
    assert committed == schema_text(schemas()[name]), (
        f"docs/schema/{name} is out of date: regenerate it with `python -m negkit.kit.runlog docs/schema`"
    )


def _fixture_records(content):
    return content["head"] if isinstance(content, dict) else content


@pytest.mark.parametrize("name", sorted(RUNS))
def test_every_layout_fixture_file_reads_as_its_model(name):
    """The fixture's files are the runs less their volatile keys (dates, the environment), with the samples'
    strings hashed and results.json's tasks as digests: those stand in for the task files, read alone."""
    files = json.loads((FIXTURE / f"{name}.json").read_text(encoding="utf-8"))
    tasks = []
    for file, content in files.items():
        if file.endswith(".results.json"):
            log = task_log(content, file)
            assert isinstance(log, TaskLog) and log.negkit_layout == LAYOUT_VERSION and log.task.task
            assert log.as_json() == content
            tasks.append({key: value for key, value in content.items() if key != "record"})
        elif file.endswith(".samples.jsonl"):
            for line, record in enumerate(_fixture_records(content), start=1):
                assert sample_record(record, file, line).fields() == record
    combined = files["results.json"]
    assert len(combined["tasks"]) == len(tasks)
    log = run_log({**combined, "tasks": tasks}, "results.json")
    assert log.negkit_layout == LAYOUT_VERSION and log.as_json() == {**combined, "tasks": tasks}
    assert set(log.results) == {task.name for task in log.tasks}


def test_sample_kinds_are_told_by_their_fields():
    assert sample_model({"item_id": 1, "choices": ["a"], "scores": [0.0]}) is ChoiceSample
    assert sample_model({"item_id": 1, "sentence_good": "a", "sentence_bad": "b", "logprob_good": 0}) is PairSample
    assert sample_model({"item_id": 1, "logprob_true": 0.0, "logprob_false": -1.0}) is TruthSample
    assert sample_model({"item_id": 1, "runs": {}}) is SampleRecord
    unknown = sample_record({"item_id": "x", "anything": {"nested": [1, 2.5, None]}}, "s.jsonl", 1)
    assert unknown.fields() == {"item_id": "x", "anything": {"nested": [1, 2.5, None]}}


@pytest.fixture(scope="module")
def constant_run(tmp_path_factory):
    from negkit.cli import main

    out = tmp_path_factory.mktemp("runlog") / "constant"
    assert main(eval_arguments("constant", shared_data_path(), out)) == 0
    return out


def test_a_run_folder_read_and_written_back_is_the_same_bytes(constant_run):
    results = constant_run / "nan-nli.results.json"
    assert read_task_log(results).json_text() == results.read_text(encoding="utf-8")
    combined = read_run_results(constant_run)
    assert isinstance(combined, RunLog) and combined.json_text() == (constant_run / "results.json").read_text("utf-8")
    lines = (constant_run / "nan-nli.samples.jsonl").read_text(encoding="utf-8").splitlines()
    records = read_samples(constant_run / "nan-nli.samples.jsonl")
    assert [json.dumps(record.fields(), ensure_ascii=False) for record in records] == lines
    assert all(isinstance(record, ChoiceSample) for record in records)
    run = read_run(constant_run)
    task = run.tasks["nan-nli"]
    assert run.model_name == "constant:entailment" and run.model.backend == "baseline"
    assert task.log.data is not None and task.log.data.count == 30 == len(task.records)
    assert task.log.metrics is not None and task.log.metrics.intervals
    assert task["metrics"] == task.metrics  # the dictionary view the older callers read


def test_an_older_layout_reads_and_stays_as_it_was():
    """A layout-1 file (no ``negkit_layout``; NeQA's samples with ``classes`` and ``loglikelihoods``) reads; the
    version it reads as is 1, and writing it back adds no key."""
    old = {"negkit_version": "0.0.9", "task": {"task": "neqa"}, "metrics": {"accuracy": 0.5}, "data": {"count": 2}}
    log = task_log(old, "neqa.results.json")
    assert log.negkit_layout == 1 and log.as_json() == old
    record = {"item_id": "neqa-0", "classes": [" A", " B"], "loglikelihoods": [-1.0, -2.0], "prediction": 0}
    assert sample_record(record, "neqa.samples.jsonl", 1).fields() == record
    run = run_log({"results": {"neqa": {"acc,none": 0.5}}, "record": {"tasks": ["neqa"]}}, "results.json")
    assert run.negkit_layout == 1 and run.results["neqa"].as_json() == {"acc,none": 0.5}


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ({}, "no 'task' field"),
        ({"task": 3}, "field 'task': expected a JSON object, found a number 3"),
        ({"task": {"task": ["a"]}}, "field 'task.task': expected a string, found an array"),
        ({"task": {}, "data": {"count": "30"}}, "field 'data.count': expected a whole number, found a string '30'"),
        ({"task": {}, "metrics": {"intervals": {"a": {"ci": [0, "x"]}}}}, "field 'metrics.intervals.a.ci[1]'"),
        ({"task": {}, "samples": {"lines": True}}, "field 'samples.lines': expected a whole number"),
    ],
)
def test_a_malformed_task_results_file_names_the_file_and_field(tmp_path, content, message):
    path = tmp_path / "scone.results.json"
    path.write_text(json.dumps(content), encoding="utf-8")
    with pytest.raises(InputFormatError, match="^" + str(path).replace("\\", "\\\\") + ": ") as raised:
        read_task_log(path)
    assert message in str(raised.value)


def test_a_malformed_sample_record_names_the_file_line_and_field(constant_run, tmp_path):
    samples = tmp_path / "nan-nli.samples.jsonl"
    lines = (constant_run / "nan-nli.samples.jsonl").read_text(encoding="utf-8").splitlines()
    record = json.loads(lines[2])
    record["scores"] = "high"
    lines[2] = json.dumps(record)
    samples.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(InputFormatError, match=r"nan-nli\.samples\.jsonl:3: field 'scores': expected"):
        read_samples(samples)  # no results file beside it: the file is not checked against one


def test_a_malformed_results_json_names_the_field(tmp_path):
    path = tmp_path / "results.json"
    path.write_text(json.dumps({"negkit_layout": 5, "results": {}, "n-shot": {"scone": "zero"}}), encoding="utf-8")
    with pytest.raises(InputFormatError, match=r"results\.json: field 'n-shot\.scone': expected a whole number"):
        read_run_log(path)
    path.write_text("{}", encoding="utf-8")
    with pytest.raises(InputFormatError, match="no 'negkit_layout' field"):
        read_run_log(path)


def test_the_schema_command_writes_the_files(tmp_path):
    from negkit.kit.runlog.__main__ import main

    assert main([str(tmp_path)]) == 0
    written = sorted(path.name for path in tmp_path.iterdir())
    assert written == sorted(schemas())
    assert json.loads((tmp_path / "task-results.schema.json").read_text())["title"] == "TASK.results.json"
    assert main([]) == 2
