"""CondaQA: reader, accuracy and group consistency (hand-computed and on the dev file), the task, the scorer."""

from __future__ import annotations

import json
from collections import Counter, defaultdict

import pytest
from conftest import shared_data_path

from negkit.benchmarks.condaqa.data import QAItem, read_condaqa
from negkit.benchmarks.condaqa.metrics import canonical_answer, condaqa_report, normalize_answer
from negkit.cli import main
from negkit.errors import InputFormatError


def _item(sample, passage, question, edit, answer):
    return QAItem(f"condaqa-{sample}", sample, passage, question, edit, "P", "Q?", answer)


def test_normalisation_and_reading_written_answers():
    assert normalize_answer("DON'T KNOW") == "dont know"
    assert normalize_answer("  The  Roman Empire. ") == "roman empire"
    assert canonical_answer("Yes, because the passage says so.\nMore") == "yes"
    assert canonical_answer("no") == "no" and canonical_answer("I don't know.") == "dont know"
    assert canonical_answer("Nothing at all") == "nothing at all"  # "no" must be a whole word


def test_consistency_hand_computed():
    items = [
        _item(1, 7, "q1", 0, "YES"),
        _item(2, 7, "q1", 1, "YES"),
        _item(3, 7, "q1", 2, "NO"),
        _item(4, 7, "q1", 3, "NO"),
        _item(5, 7, "q2", 0, "DON'T KNOW"),
        _item(6, 7, "q2", 3, "the river"),
        _item(7, 8, "q1", 2, "NO"),  # a group without its original passage
    ]
    predictions = ["yes", "yes", "no", "yes", "dont know", "The river.", "no"]
    report = condaqa_report(items, predictions)
    assert report["accuracy"] == {"correct": 6, "total": 7, "accuracy": pytest.approx(6 / 7)}
    assert report["accuracy_per_edit"]["affirmative"] == {"correct": 1, "total": 2, "accuracy": 0.5}
    # groups: (7,q1) wrong on the affirmative edit; (7,q2) all right; (8,q1) all right -> 2 of 3
    assert (report["consistency"]["all"]["correct"], report["consistency"]["all"]["total"]) == (2, 3)
    # paraphrase: (7,q1) only, both right; scope: (7,q1) only, both right; affirmative: (7,q1) wrong, (7,q2) right
    assert (report["consistency"]["paraphrase"]["correct"], report["consistency"]["paraphrase"]["total"]) == (1, 1)
    assert (report["consistency"]["affirmative"]["correct"], report["consistency"]["affirmative"]["total"]) == (1, 2)
    assert (
        report["group_sizes"] == {"1": 1, "2": 1, "4": 1}
        and report["span_answers"] == 1
        and report["span_correct"] == 1
    )
    # predicted: yes 3, no 2, don't know 1, a span ("The river.") 1, none empty
    assert report["predicted_answers"] == {"yes": 3, "no": 2, "dont know": 1, "empty": 0, "other": 1}
    assert condaqa_report(items[:2], ["", "Yes."])["predicted_answers"]["empty"] == 1


@pytest.fixture(scope="module")
def dev():
    return read_condaqa(shared_data_path("condaqa", "condaqa_dev.json"))


def test_dev_file_counts(dev):
    assert len(dev) == 1110
    assert Counter(item.answer for item in dev if not item.is_span) == {"YES": 536, "NO": 512, "DON'T KNOW": 48}
    assert sum(item.is_span for item in dev) == 14
    assert Counter(item.edit_name for item in dev) == {
        "original": 288,
        "paraphrase": 282,
        "scope": 256,
        "affirmative": 284,
    }


def test_dev_always_yes_counted_independently(dev):
    report = condaqa_report(dev, ["yes"] * len(dev))
    assert report["accuracy"]["correct"] == 536
    groups = defaultdict(dict)
    for item in dev:
        groups[(item.passage_id, item.question_id)][item.edit] = item.answer == "YES"
    assert report["consistency"]["all"]["correct"] == sum(all(g.values()) for g in groups.values()) == 39
    assert report["consistency"]["all"]["total"] == len(groups) == 328
    both = [g for g in groups.values() if 0 in g and 3 in g]
    assert report["consistency"]["affirmative"]["total"] == len(both) == 248
    assert report["consistency"]["affirmative"]["correct"] == sum(g[0] and g[3] for g in both) == 28
    gold = condaqa_report(dev, [item.answer for item in dev])
    assert gold["accuracy"]["accuracy"] == 1.0 and gold["consistency"]["all"]["accuracy"] == 1.0


def test_reader_errors(tmp_path):
    bad = tmp_path / "condaqa_dev.json"
    bad.write_text('{"SampleID": 1}\n')
    with pytest.raises(InputFormatError, match=r":1: missing field"):
        read_condaqa(bad)
    bad.write_text(
        '{"SampleID": 1, "PassageID": 2, "QuestionID": "q1", "PassageEditID": 7, "sentence1": "P", '
        '"sentence2": "Q", "label": "YES"}\n'
    )
    with pytest.raises(InputFormatError, match="PassageEditID"):
        read_condaqa(tmp_path)


def test_score_condaqa_cli(tmp_path, capsys, dev):
    predictions = tmp_path / "p.jsonl"
    predictions.write_text(
        "".join(json.dumps({"SampleID": item.sample_id, "prediction": "No."}) + "\n" for item in dev)
    )
    assert main(["score", "condaqa", str(predictions), "--json", "--data", str(shared_data_path())]) == 0
    metrics = json.loads(capsys.readouterr().out)
    assert metrics["accuracy"]["correct"] == 512 and metrics["data_count"] == 1110
    predictions.write_text(
        json.dumps({"item_id": "condaqa-5294", "prediction": "yes"})
        + "\n"
        + json.dumps({"item_id": "condaqa-5294", "prediction": "no"})
        + "\n"
    )
    assert main(["score", "condaqa", str(predictions)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and f"{predictions}:2: item 'condaqa-5294' predicted twice" in captured.err
    predictions.write_text(json.dumps({"item_id": "condaqa-5294", "prediction": 1}) + "\n")
    assert main(["score", "condaqa", str(predictions)]) == 2
    assert "field 'prediction'" in capsys.readouterr().err


@pytest.mark.parametrize("task", ["condaqa", "condaqa-choice"])
def test_negkit_eval_condaqa(tmp_path, task):
    from tiny_models import save_tiny_causal

    model = save_tiny_causal(tmp_path / "model", chat_template=False)
    out = tmp_path / "run"
    assert (
        main(
            [
                "eval",
                "--model",
                f"hf:{model}",
                "--tasks",
                task,
                "--data",
                str(shared_data_path()),
                "--limit",
                "6",
                "--no-progress",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    result = json.loads((out / f"{task}.results.json").read_text())
    assert result["metrics"]["count"] == 6 and result["data"]["split"] == "test"  # negkit's default split
    samples = [json.loads(line) for line in (out / f"{task}.samples.jsonl").read_text().splitlines()]
    assert all("prediction" in s and "gold" in s for s in samples)
    if task == "condaqa-choice":
        assert all(s["prediction"] in ("yes", "no", "dont know") for s in samples)
    # the per-sample file scores back to the same accuracy
    assert main(["score", "condaqa", str(out / f"{task}.samples.jsonl"), "--data", str(shared_data_path())]) == 0


def test_constant_answer_on_the_generation_task_is_scored_as_written(tmp_path, capsys):
    """A constant answer is a string: ``--model constant:yes`` writes "yes" to every CondaQA question and is scored
    like any written answer (it was refused: the generation task has no fixed answers). On the dev split this is
    the always-yes baseline counted by hand above: 536 of 1,110 right, 39 of 328 question groups consistent."""
    out = tmp_path / "yes"
    argv = ["eval", "--model", "constant:yes", "--tasks", "condaqa", "--split", "dev", "--out", str(out)]
    assert main([*argv, "--data", str(shared_data_path()), "--no-progress", "--bootstrap", "0"]) == 0
    report = json.loads((out / "condaqa.results.json").read_text())["metrics"]
    assert report["accuracy"]["correct"] == 536 and report["accuracy"]["total"] == 1110
    assert report["consistency"]["all"]["correct"] == 39 and report["consistency"]["all"]["total"] == 328
    samples = [json.loads(line) for line in (out / "condaqa.samples.jsonl").read_text().splitlines()]
    assert {sample["output"] for sample in samples} == {"yes"}
    free = tmp_path / "free"  # any other text is an answer too, written as it is
    assert (
        main(
            [
                "eval",
                "--model",
                "constant:maybe so",
                "--tasks",
                "condaqa",
                "--split",
                "dev",
                "--limit",
                "5",
                "--out",
                str(free),
                "--data",
                str(shared_data_path()),
                "--no-progress",
                "--bootstrap",
                "0",
            ]
        )
        == 0
    )
    outputs = {json.loads(line)["output"] for line in (free / "condaqa.samples.jsonl").read_text().splitlines()}
    assert outputs == {"maybe so"}


def test_the_training_source_drops_passages_shared_with_test_and_keeps_yes_no(tmp_path):
    shared_data_path("condaqa", "condaqa_test.json")
    from negkit.benchmarks.condaqa.training import CondaQATraining, dev_items_not_in_test
    from negkit.kit.training_data.task_source import rendered_examples

    items, files = dev_items_not_in_test()
    everything = read_condaqa(shared_data_path("condaqa", "condaqa_dev.json"))
    test_originals = {item.passage for item in read_condaqa(files[1]) if item.edit == 0}
    dropped = {item.passage_id for item in everything} - {item.passage_id for item in items}
    assert len(dropped) == 3  # the 3 original passages the test split also holds, with their edits
    assert not {item.passage for item in items if item.edit == 0} & test_originals
    examples = rendered_examples(CondaQATraining(), items, None, "condaqa")
    assert {example.completion for example in examples} == {" yes\n", " no\n"}
    assert examples[0].choices == (" yes\n", " no\n", " don't know\n")
    assert examples[0].prompt.endswith("\nAnswer:") and not examples[0].eos
    # the closed yes/no questions only: 536 yes + 512 no in the dev split, less those of the dropped passages
    assert len(examples) == sum(canonical_answer(item.answer) in ("yes", "no") for item in items)
