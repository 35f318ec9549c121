"""ScoNe's condition filter (``--scone-conditions``): the tasksource layout of Thunder-NUBench's Table 16 (five
conditions, one_scoped left out), checked on a hand-made two-row data set and on the real counts."""

from __future__ import annotations

import json
import shutil

import pytest
from conftest import NUBENCH_FIXTURE, shared_data_path

from negkit.benchmarks.scone.data import SCONE_CONDITIONS, TASKSOURCE_CONDITIONS, parse_conditions
from negkit.cli import main
from negkit.errors import NegkitError
from negkit.kit.suites import get_task

EDITED = ",sentence1,sentence2,gold_label,sentence1_lex,sentence2_lex,group_index,sentence1_edited,sentence2_edited,gold_label_edited\n"
PLAIN = ",sentence1,sentence2,gold_label,sentence1_lex,sentence2_lex\n"
#: Per condition, the gold labels of its two rows (row 0, row 1).
GOLD = {
    "no_negation": ("entailment", "neutral"),
    "one_not_scoped": ("entailment", "entailment"),
    "one_scoped": ("neutral", "neutral"),
    "one_scoped_one_not_scoped": ("neutral", "entailment"),
    "two_not_scoped": ("entailment", "neutral"),
    "two_scoped": ("neutral", "neutral"),
}


def _write_scone(root):
    folder = root / "scone" / "scone_nli" / "test"
    folder.mkdir(parents=True)
    for condition, labels in GOLD.items():
        lines = [PLAIN if condition == "one_scoped" else EDITED]
        for row, label in enumerate(labels):
            if condition == "one_scoped":
                lines.append(f"{row},a man owns a dog {row},a man owns an animal {row},{label},dog,animal\n")
            else:
                lines.append(
                    f"{row},x,y,neutral,dog,animal,{row},a {condition} premise {row},a hypothesis {row},{label}\n"
                )
        (folder / f"{condition}.csv").write_text("".join(lines))
    return root


def test_parse_conditions():
    assert parse_conditions(None) == parse_conditions("all") == SCONE_CONDITIONS
    assert parse_conditions("tasksource") == TASKSOURCE_CONDITIONS
    assert "one_scoped" not in TASKSOURCE_CONDITIONS and len(TASKSOURCE_CONDITIONS) == 5
    assert parse_conditions("two_scoped, no_negation") == ("no_negation", "two_scoped")  # the paper's order
    with pytest.raises(NegkitError, match="unknown ScoNe condition one_scope; give all or tasksource"):
        parse_conditions("one_scope")


def test_tasksource_layout_on_a_hand_made_set(tmp_path, capsys):
    root = _write_scone(tmp_path / "data")
    task = get_task("scone", conditions="tasksource")
    loaded = task.load(root, "test", None, 0)
    assert len(loaded.items) == 10 and {item.condition for item in loaded.items} == set(TASKSOURCE_CONDITIONS)
    assert task.config()["conditions"] == list(TASKSOURCE_CONDITIONS)
    assert "conditions" not in get_task("scone").config()  # a run of all six records what it always did
    assert len(task.load(root, "test", 3, 0).items) == 5  # ceil(3 / 5) = 1 row of each of the five
    out = tmp_path / "run"
    argv = ["eval", "--model", "constant:neutral", "--tasks", "scone", "--data", str(root), "--out", str(out)]
    assert main([*argv, "--scone-conditions", "tasksource", "--bootstrap", "0", "--no-progress"]) == 0
    results = json.loads((out / "scone.results.json").read_text())
    accuracy = results["metrics"]["accuracy"]
    # always "neutral": right on the neutral rows only. no_negation 1/2, one_not_scoped 0/2,
    # one_scoped_one_not_scoped 1/2, two_not_scoped 1/2, two_scoped 2/2; overall 5/10 (with one_scoped: 7/12)
    assert accuracy == {
        "no_negation": 0.5,
        "one_not_scoped": 0.0,
        "one_scoped_one_not_scoped": 0.5,
        "two_not_scoped": 0.5,
        "two_scoped": 1.0,
        "overall": 0.5,
    }
    assert "--scone-conditions tasksource" in results["command"]
    capsys.readouterr()
    assert main([*argv[:-1], str(tmp_path / "all"), "--bootstrap", "0", "--no-progress"]) == 0
    every = json.loads((tmp_path / "all" / "scone.results.json").read_text())["metrics"]["accuracy"]
    assert every["one_scoped"] == 1.0 and every["overall"] == pytest.approx(7 / 12)


def test_beside_other_tasks_the_task_or_a_per_task_value(tmp_path, capsys):
    root = _write_scone(tmp_path / "data")
    shutil.copytree(NUBENCH_FIXTURE / "multiple-choice", root / "thunder-nubench" / "multiple-choice")
    base = ["eval", "--model", "random", "--data", str(root), "--bootstrap", "0", "--no-progress"]
    # the task of the tasksource layout
    assert main([*base, "--tasks", "nubench,scone-tasksource", "--out", str(tmp_path / "a")]) == 0
    results = json.loads((tmp_path / "a" / "scone-tasksource.results.json").read_text())
    assert results["data"]["count"] == 10 and results["task"]["conditions"] == list(TASKSOURCE_CONDITIONS)
    # the flag for one task; conditions with commas; the recorded command spells it the same way
    flag = ["--scone-conditions", "scone=two_scoped,no_negation"]
    assert main([*base, "--tasks", "nubench,scone", *flag, "--out", str(tmp_path / "b")]) == 0
    results = json.loads((tmp_path / "b" / "scone.results.json").read_text())
    assert results["data"]["count"] == 4 and results["task"]["conditions"] == ["no_negation", "two_scoped"]
    assert "--scone-conditions scone=two_scoped,no_negation" in results["command"]
    capsys.readouterr()


def test_the_flag_is_scone_s_own(tmp_path, capsys):
    argv = ["eval", "--model", "random", "--tasks", "nan-nli", "--scone-conditions", "tasksource"]
    assert main([*argv, "--data", str(tmp_path)]) == 2
    assert "--scone-conditions does not apply to task nan-nli" in capsys.readouterr().err
    assert main(["eval", "--model", "random", "--tasks", "scone", "--scone-conditions", "bogus"]) == 2
    assert "unknown ScoNe condition bogus" in capsys.readouterr().err


def test_tasksource_counts_on_the_real_data():
    shared_data_path("scone")
    task = get_task("scone", conditions="tasksource")
    # tasksource/scone on the hub: train 5,010 and test 1,000 rows (5 x 1,002 and 5 x 200)
    assert len(task.load(None, "test", None, 0).items) == 1000
    assert len(task.load(None, "train", None, 0).items) == 5010
