"""The probe kinds of the kit (cloze, paired questions, word completions): requests, records, metrics and
predictions-file records from hand-made answers, every number worked out by hand; and suite groups."""

from __future__ import annotations

import json

import pytest

from negkit.errors import InputFormatError
from negkit.kit.suites import expand_task_names, suite_groups
from negkit.kit.tasks.cloze import Cloze, ClozeForm, ClozeProbe
from negkit.kit.tasks.completion import CompletionForm, CompletionItem, Completions, clean_word, predicted_word
from negkit.kit.tasks.paired import PairedItem, PairedQuestions, PartQuestion
from negkit.models.base import LoglikelihoodRequest, LoglikelihoodResult, NextTokenRequest

APPROX = pytest.approx
VOCAB = ("bird", "fish", "tree")


def _probe(item_id, group, gold, contrast=True):
    forms = {
        "affirmative": ClozeForm(
            f"A {item_id} is a", (gold,), (f"A {item_id} is", f" a {gold}", " a tree") if contrast else None
        ),
        "negated": ClozeForm(f"A {item_id} is not a", (), None),
    }
    return ClozeProbe(item_id, group, forms, VOCAB)


CLOZE = Cloze(
    "toy-cloze",
    lambda folder, split: [],
    lambda folder, split: [],
    ks=(1, 2),
    keep=3,
    flips=True,
    headline=("overlap_at_1", "affirmative.p_at_1"),
)


def test_cloze_requests_records_and_metrics_by_hand():
    task = CLOZE.task()
    probes = [_probe("robin", "g1", "bird"), _probe("trout", "g1", "fish"), _probe("oak", "g2", "tree", contrast=False)]
    requests = task.requests(probes)
    assert requests[0][0] == NextTokenRequest("A robin is a", (" bird", " fish", " tree"))
    assert requests[0][1:3] == (
        LoglikelihoodRequest("A robin is", " a bird"),
        LoglikelihoodRequest("A robin is", " a tree"),
    )
    assert requests[0][3] == NextTokenRequest("A robin is not a", (" bird", " fish", " tree"))
    assert len(requests[2]) == 2  # no contrast

    def row(bird, fish, tree):
        return {" bird": bird, " fish": fish, " tree": tree}

    answers = [  # robin: bird first, negated bird first again (same top-1), true > false
        (row(-1, -2, -3), LoglikelihoodResult(-1.0, True, 2), LoglikelihoodResult(-2.0, False, 2), row(-1, -3, -2)),
        # trout: gold fish second, negated tree first; false > true
        (row(-1, -2, -3), LoglikelihoodResult(-3.0, False, 2), LoglikelihoodResult(-2.0, True, 2), row(-3, -2, -1)),
        # oak: gold tree third, the negated scores the affirmative's (same top-1, rho 1)
        (row(-1, -2, -3), row(-1, -2, -3)),
    ]
    records = task.records(probes, answers)
    assert records[0]["affirmative"]["top"] == ["bird", "fish", "tree"] and records[0]["affirmative"]["gold_rank"] == 1
    assert records[0]["same_top1"] and records[0]["spearman"] == APPROX(0.5)
    assert records[1]["affirmative"]["gold_rank"] == 2 and records[1]["affirmative"]["prefers_true"] is False
    assert not records[1]["same_top1"] and records[1]["spearman"] == APPROX(-1.0)
    assert (
        records[2]["affirmative"]["gold_rank"] == 3
        and records[2]["same_top1"]
        and records[2]["spearman"] == APPROX(1.0)
    )
    metrics = task.metrics(probes, records)
    # groups: g1 (robin, trout), g2 (oak); overall = mean of the two groups
    assert (
        metrics["groups"]["g1"]["affirmative"]["p_at_1"] == 0.5
        and metrics["groups"]["g1"]["affirmative"]["p_at_2"] == 1.0
    )
    assert metrics["overall"]["affirmative"]["p_at_1"] == APPROX((0.5 + 0.0) / 2)
    assert metrics["overall"]["affirmative"]["p_at_2"] == APPROX((1.0 + 0.0) / 2)
    assert metrics["overall"]["affirmative"]["prefers_true"] == APPROX(0.5)  # only g1 has contrasts
    assert metrics["overall"]["overlap_at_1"] == APPROX((0.5 + 1.0) / 2)
    assert metrics["overall"]["flip_at_1"] == APPROX((0.5 + 0.0) / 2)
    assert metrics["overall"]["spearman"] == APPROX(((0.5 - 1.0) / 2 + 1.0) / 2)
    assert "negated" not in metrics["overall"] or "p_at_1" not in metrics["overall"]["negated"]  # no negated gold
    paths = {estimand.path for estimand in task.estimands(probes, records, headline_only=True)}
    assert paths == {"overall.overlap_at_1", "overall.affirmative.p_at_1"}
    assert "Overall (mean over the groups)" in task.tables(metrics)


def test_cloze_answer_space_and_a_missing_form():
    task = CLOZE.task()
    probes = [_probe("robin", "g", "bird"), _probe("trout", "g", "fish"), _probe("salmon", "g", "fish")]
    space = task.answer_space(probes)
    assert space.answers == {"bird": " bird", "fish": " fish", "tree": " tree"} and space.gold == (
        "bird",
        "fish",
        "fish",
    )
    assert task.answer_space([]).answers == {}
    lonely = ClozeProbe("x", "g", {"affirmative": ClozeForm("X is a", ("bird",))}, VOCAB)
    assert task.requests([lonely]) == [(NextTokenRequest("X is a", (" bird", " fish", " tree")),)]
    record = task.records([lonely], [({" bird": 0.0, " fish": -1.0, " tree": -2.0},)])[0]
    assert record["negated"] is None and record["same_top1"] is None and record["spearman"] is None


def test_cloze_predictions_file(tmp_path):
    task = CLOZE.task()
    probes = [_probe("robin", "g1", "bird"), _probe("trout", "g1", "fish")]
    path = tmp_path / "predictions.jsonl"
    path.write_text(
        json.dumps(
            {
                "item_id": "robin",
                "affirmative": {"top": ["fish", "bird"], "prefers_true": True},
                "negated": {"top": ["fish"]},
                "spearman": 0.25,
            }
        )
        + "\n",
        encoding="utf-8",
    )
    [record] = task.predictions(path, probes)
    assert record["affirmative"]["gold_rank"] == 2 and record["same_top1"] and record["spearman"] == 0.25
    path.write_text(json.dumps({"item_id": "robin", "affirmative": {"top": "fish"}, "negated": {"top": []}}) + "\n")
    with pytest.raises(InputFormatError, match=r"predictions.jsonl:1: field 'affirmative'"):
        task.predictions(path, probes)
    path.write_text("{}\n" + json.dumps({"item_id": "robin"}) + "\n")
    with pytest.raises(InputFormatError, match=r":1: missing field 'item_id'"):
        task.predictions(path, probes)


TRUTH = PairedQuestions(
    "toy-pairs", lambda folder, split: [], lambda folder, split: [], chat="auto", headline=("accuracy", "consistency")
)


def _pair(item_id, group, label):
    return PairedItem(
        item_id,
        group,
        {
            "affirmative": PartQuestion(f"Q: {item_id}", ("True", "False"), 0 if label else 1),
            "negated": PartQuestion(f"Q: not {item_id}", ("True", "False"), 1 if label else 0),
        },
    )


def test_paired_records_and_metrics_by_hand():
    task = TRUTH.task()
    items = [_pair("a", "x", True), _pair("b", "x", False), _pair("c", "y", True)]
    assert task.requests(items, None)[0] == (
        NextTokenRequest("Q: a", ("True", "False")),
        NextTokenRequest("Q: not a", ("True", "False")),
    )
    says = {True: {"True": -0.1, "False": -2.0}, False: {"True": -2.0, "False": -0.1}}
    # a: True / False (both right, consistent); b: True / True (wrong, right: inconsistent); c: False / True (both wrong)
    records = task.records(items, [(says[True], says[False]), (says[True], says[True]), (says[False], says[True])])
    assert [r["consistent"] for r in records] == [True, False, True]
    assert [r["both_correct"] for r in records] == [True, False, False]
    assert records[0]["affirmative"]["p_first"] == APPROX(1 / (1 + pow(2.718281828459045, -1.9)))
    metrics = task.metrics(items, records)
    assert metrics["overall"]["affirmative"]["accuracy"] == APPROX(1 / 3)
    assert metrics["overall"]["negated"]["accuracy"] == APPROX(2 / 3)
    assert metrics["overall"]["accuracy"] == APPROX((1 + 0.5 + 0) / 3)
    assert metrics["overall"]["consistency"] == APPROX(2 / 3) and metrics["groups"]["x"]["consistency"] == 0.5
    assert task.harness_scores(records) == {"acc": [1.0, 0.5, 0.0]}
    space = task.answer_space(items)
    assert space.answers == {"True": "True", "False": "False"} and space.gold.count("True") == 3


def test_paired_predictions_file(tmp_path):
    task = TRUTH.task()
    items = [_pair("a", "x", True), _pair("b", "x", False)]
    path = tmp_path / "p.jsonl"
    path.write_text(
        json.dumps({"item_id": "a", "affirmative": "true", "negated": {"prediction": 1}})
        + "\n"
        + json.dumps({"item_id": "b", "affirmative": True, "negated": False})
        + "\n",
        encoding="utf-8",
    )
    first, second = task.predictions(path, items)
    assert first["consistent"] and first["both_correct"]
    assert second["affirmative"]["correct"] is False and second["negated"]["correct"] is False and second["consistent"]
    path.write_text(json.dumps({"item_id": "a", "affirmative": "maybe", "negated": 0}) + "\n", encoding="utf-8")
    with pytest.raises(InputFormatError, match=r"p.jsonl:1: field 'affirmative': 'maybe' is not one of the answers"):
        task.predictions(path, items)


def test_words_are_cleaned_as_the_authors_clean_them():
    assert clean_word('"Molecules."') == "molecules" and clean_word("a") == "a" and clean_word("“Air”,") == "air"
    assert predicted_word(" a lot of air") == "lot" and predicted_word(" the, and") == "" and predicted_word("") == ""


def test_completion_records_and_metrics_by_hand():
    spec = Completions("toy-words", lambda folder, split: [], lambda folder, split: [])
    task = spec.task()
    items = [
        CompletionItem(
            f"i{k}",
            "g",
            {
                "query": CompletionForm(f"X{k} doesn't have", ("wings",)),
                "opposite": CompletionForm(f"X{k} has", ("wings",)),
            },
        )
        for k in range(3)
    ]
    assert task.requests(items)[0][0].context == "X0 doesn't have" and task.requests(items)[0][0].stop == ("\n",)
    outputs = [(" wings.", " Wings and"), (" a tail", " wings"), ("", " the wings")]
    records = task.records(items, outputs)
    assert [r["query"]["word"] for r in records] == ["wings", "tail", ""]
    assert [r["same_word"] for r in records] == [True, False, None]
    metrics = task.metrics(items, records)
    assert metrics["overall"]["query"]["hit_at_1"] == APPROX(1 / 3)
    assert metrics["overall"]["opposite"]["hit_at_1"] == APPROX(1.0)
    assert metrics["overall"]["same_word"] == APPROX(1 / 2)


def test_suite_groups_expand_to_main_tasks():
    groups = suite_groups()
    members = [suite.name for suite in groups["negation-all"]]
    assert {"negated-lama", "neg-136", "truth-negation", "semantoneg", "neqa-full", "llm-neg-bench", "tind"} <= set(
        members
    )
    tasks = expand_task_names(["negation-all"])
    assert (
        "llm-neg-bench-mkrnq" in tasks and "llm-neg-bench-sar" not in tasks and "neqa-full-decomposition" not in tasks
    )
    skipped: list[str] = []
    only = expand_task_names(["negation-all"], lambda task: task == "semantoneg", skipped)
    assert only == ["semantoneg"] and "negated-lama" in skipped
    assert expand_task_names(["llm-neg-bench"]) == ["llm-neg-bench-mkrnq", "llm-neg-bench-mwr", "llm-neg-bench-sar"]
