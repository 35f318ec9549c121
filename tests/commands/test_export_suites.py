"""``negkit export lm-eval --tasks SUITE``: a suite's name stands for its exported tasks, as in ``negkit eval``.

Checked without the LM Evaluation Harness: the names are expanded by the registry, and the export writes one
Harness task per expanded task."""

from __future__ import annotations

import json

import pytest

from negkit.benchmarks.scone import SCONE
from negkit.cli import main
from negkit.commands.export import export_lm_eval, export_task_names, exportable, harness_names
from negkit.errors import NegkitError
from negkit.kit.suites import (
    DataSource,
    SuiteDescription,
    TaskEntry,
    all_suites,
    expand_task_names,
    register_suite,
    unregister_suite,
)

NEGNLI = ["negnli-mnli", "negnli-snli", "negnli-rte"]


def test_a_suite_name_stands_for_its_exported_tasks():
    assert export_task_names(["negnli"]) == NEGNLI
    assert export_task_names(["negation-nli"]) == NEGNLI  # an alias, as for negkit eval
    assert export_task_names(["negnli"]) == expand_task_names(["negnli"])  # the same tasks negkit eval runs
    assert export_task_names(["blimp", "neqa", "nannli"]) == ["blimp-negation", "neqa", "nan-nli"]
    # a suite whose other tasks have no export stands for the exported ones only
    assert export_task_names(["thunder-nubench"]) == ["nubench"]
    assert export_task_names(["this-is-not-a-dataset"]) == ["tind"]


def test_task_names_stay_and_repeats_are_dropped():
    assert export_task_names(["negnli-rte", "tind"]) == ["negnli-rte", "tind"]
    assert export_task_names(["negnli-snli", "negnli", "negnli-mnli"]) == ["negnli-snli", "negnli-mnli", "negnli-rte"]
    assert export_task_names(["no-such-task"]) == ["no-such-task"]  # refused by export_lm_eval, naming it
    assert export_task_names([]) == []


def test_every_suite_expands_to_its_exported_tasks():
    exports = exportable()
    for suite in all_suites():
        exported = [task for task in suite.task_names if task in exports]
        for name in suite.names:
            if name in suite.task_names:
                assert export_task_names([name]) == [name]
            elif exported:
                assert export_task_names([name]) == exported


def test_a_suite_without_an_export_is_refused_by_name(tmp_path):
    suite = SuiteDescription(
        name="no-export-suite",
        title="No export",
        tasks=(TaskEntry("no-export-a", SCONE.task, "a"), TaskEntry("no-export-b", SCONE.task, "b")),
        main_task="no-export-a",
        data=DataSource("no-export-data", "nowhere"),
    )
    register_suite(suite)
    try:
        with pytest.raises(NegkitError, match="suite no-export-suite has no task exported"):
            export_task_names(["no-export-suite"])
        with pytest.raises(NegkitError, match="suite no-export-suite has no task exported"):
            export_lm_eval(["no-export-suite"], tmp_path / "x")
        assert not (tmp_path / "x").exists()  # refused before anything is written
    finally:
        unregister_suite("no-export-suite")


def test_a_task_without_an_export_is_still_refused(tmp_path):
    with pytest.raises(NegkitError, match="cannot export condaqa"):
        export_lm_eval(["condaqa"], tmp_path / "x")  # condaqa is a task too: it is not expanded


def test_export_negnli_writes_its_three_tasks(tmp_path, capsys, shared_data):
    if not (shared_data / "negation-nli").is_dir():
        pytest.skip("negation-nli not found in ../shared/data")
    out = tmp_path / "export"
    assert (
        main(["export", "lm-eval", "--tasks", "negnli", "--data", str(shared_data), "--limit", "6", "--out", str(out)])
        == 0
    )
    printed = capsys.readouterr().out
    manifest = json.loads((out / "negkit_export.json").read_text(encoding="utf-8"))
    assert list(manifest["tasks"]) == NEGNLI
    assert "--tasks negnli-mnli,negnli-snli,negnli-rte" in manifest["command"]  # the command written back
    for task in NEGNLI:
        harness = harness_names()[task][0]
        assert (out / f"{harness}.yaml").is_file() and (out / f"{harness}.test.jsonl").is_file()
        assert manifest["tasks"][task]["count"] >= 6
        assert f"{task}: {harness} (" in printed
        assert f"def load_negnli_{task.split('-')[1]}(" in (out / "utils.py").read_text(encoding="utf-8")


def test_the_harness_loads_every_task_of_an_exported_suite(tmp_path, shared_data):
    """With the Harness importable, ``--tasks negnli`` gives it the three NegNLI tasks, with negkit's items."""
    pytest.importorskip("lm_eval", reason="the LM Evaluation Harness (lm_eval) is not installed")
    from lm_eval.tasks import TaskManager

    if not (shared_data / "negation-nli").is_dir():
        pytest.skip("negation-nli not found in ../shared/data")
    out = tmp_path / "export"
    manifest = export_lm_eval(["negnli"], out, data=str(shared_data), limit=4)
    names = [harness_names()[task][0] for task in NEGNLI]
    loaded = TaskManager(include_path=str(out)).load(names)["tasks"]
    for task, harness in zip(NEGNLI, names):
        docs = list(loaded[harness].test_docs())
        assert len(docs) == manifest["tasks"][task]["count"]
        assert all(doc["item_id"].startswith(task + "-") for doc in docs)
