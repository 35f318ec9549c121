"""NaN-NLI and ScoNe tasks: prompts, label-word scoring, classifier label mapping, limits."""

from __future__ import annotations

import pytest
from conftest import shared_data_path

from negkit.errors import NegkitError
from negkit.kit.data.nli import NLIItem
from negkit.kit.suites import get_task
from negkit.models.base import ClassifyRequest, LoglikelihoodResult


def _item(item_id, label, condition=""):
    return NLIItem(item_id, "the man owns a dog", "the man owns a mammal", label, "scone", condition=condition)


def test_scone_prompt_and_yes_no_scoring():
    task = get_task("scone")
    items = [_item("a", "entailment", "no_negation"), _item("b", "neutral", "no_negation")]
    requests = task.requests(items)
    assert requests[0][0].context == (
        "Assume that the man owns a dog\nIs it then definitely true that the man owns a mammal?\nAnswer yes or no.\nAnswer:"
    )
    assert [r.continuation for r in requests[0]] == [" Yes", " No"]
    answers = [
        (LoglikelihoodResult(-1.0, True, 1), LoglikelihoodResult(-2.0, False, 1)),  # Yes -> entailment
        (LoglikelihoodResult(-1.0, True, 1), LoglikelihoodResult(-1.0, False, 1)),  # tie -> first (Yes)
    ]
    records = task.records(items, answers)
    assert [r["prediction"] for r in records] == ["entailment", "entailment"]
    assert task.metrics(items, records)["accuracy"] == {"no_negation": 0.5, "overall": 0.5}


def test_nan_nli_label_words():
    task = get_task("nan-nli")
    items = [_item("x", "contradiction")]
    (requests,) = task.requests(items)
    assert [r.continuation for r in requests] == [" entailment", " contradiction", " neutral"]
    assert requests[0].context.endswith("Answer entailment, contradiction or neutral.\nAnswer:")
    scores = (
        LoglikelihoodResult(-3.0, False, 2),
        LoglikelihoodResult(-2.5, False, 2),
        LoglikelihoodResult(-4.0, False, 1),
    )
    (record,) = task.records(items, [scores])
    assert record["prediction"] == "contradiction" and record["gold"] == "contradiction"


def test_classifier_labels_that_cannot_be_mapped_are_an_error():
    pytest.importorskip("torch")
    task = get_task("nan-nli", model_kind="classifier")
    with pytest.raises(NegkitError, match="LABEL_0"):
        task.records([_item("c", "neutral")], [({"LABEL_0": 0.2, "LABEL_1": 0.3, "LABEL_2": 0.5},)])
    with pytest.raises(NegkitError, match="contradiction"):
        task.records([_item("c", "neutral")], [({"entailment": 0.6, "neutral": 0.4},)])


def test_classifier_path_maps_and_scone_merges_contradiction():
    pytest.importorskip("torch")
    task = get_task("scone", model_kind="classifier")
    items = [_item("a", "neutral", "one_scoped"), _item("b", "entailment", "one_scoped")]
    assert task.requests(items)[0] == (ClassifyRequest("the man owns a dog", "the man owns a mammal"),)
    probabilities = [
        ({"ENTAILMENT": 0.1, "NEUTRAL": 0.2, "CONTRADICTION": 0.7},),
        ({"ENTAILMENT": 0.6, "NEUTRAL": 0.3, "CONTRADICTION": 0.1},),
    ]
    records = task.records(items, probabilities)
    assert [r["prediction"] for r in records] == ["neutral", "entailment"]
    nan = get_task("nan-nli", model_kind="classifier")
    (record,) = nan.records([_item("c", "contradiction")], [probabilities[0]])
    assert record["prediction"] == "contradiction"
    with pytest.raises(NegkitError):
        get_task("nan-nli", model_kind="seq2seq")


def test_limits_on_real_data():
    shared_data_path("scone")
    scone = get_task("scone").load(None, "test", 12, 0)
    assert len(scone.items) == 12 and {item.row for item in scone.items} == {0, 1}
    nan = get_task("nan-nli").load(None, "test", 10, 0)
    assert [item.item_id for item in nan.items] == [f"nan-{n:03d}" for n in range(10)]
