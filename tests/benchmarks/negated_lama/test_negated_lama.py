"""Negated LAMA: the reader on the real data, malformed files, the baselines on hand-made probes (numbers worked out
by hand), and the one path (``negkit score`` of an eval's samples is the eval; ``negkit compare`` reads it back)."""

from __future__ import annotations

import pytest
from conftest import shared_data_path
from one_path import assert_compares_with_itself, assert_score_is_eval, evaluate
from probe_fixtures import random_next, run, samples, write, write_jsonl

from negkit.benchmarks.negated_lama import read_negated_lama, read_relation
from negkit.errors import InputFormatError, NegkitError

APPROX = pytest.approx


def test_reader_on_the_real_data():
    probes = read_negated_lama(shared_data_path("negated-lama"))
    assert len(probes) == 11165
    assert len({probe.group for probe in probes}) == 45 and {probe.family for probe in probes} == {
        "TREx",
        "GoogleRE",
        "ConceptNet",
        "SQUAD",
    }
    assert sum("negated" not in probe.forms for probe in probes) == 362
    p17 = [probe for probe in probes if probe.group == "TREx/P17"]
    assert len(p17) == 339 and len(p17[0].vocabulary) == 71
    first = p17[0]
    assert first.forms["affirmative"].context == "Eibenstock is located in"
    assert first.forms["negated"].context == "Eibenstock is not located in"
    assert first.forms["affirmative"].golds == ("Germany",)


def test_malformed_files(tmp_path):
    path = write(
        tmp_path / "TREx" / "random" / "P1_random.jsonl",
        '{"obj_label": "A", "masked_sentences": ["X is in [MASK] ."], "masked_negations": ["X is not in [MASK] ."]}\n'
        '{"obj_label": "B", "masked_sentences": ["Y is in B ."], "masked_negations": ["Y is not in [MASK] ."]}\n',
    )
    with pytest.raises(InputFormatError, match=r"P1_random.jsonl:2: field 'masked_sentences'"):
        read_relation(path, "TREx")
    write(path, '{"obj_label": "", "masked_sentences": ["X is in [MASK] ."], "masked_negations": ["X [MASK]"]}\n')
    with pytest.raises(InputFormatError, match=r"P1_random.jsonl:1: field 'obj_label'"):
        read_relation(path, "TREx")
    write(path, '{"obj_label": "A", "masked_sentences": ["[MASK] is X."], "masked_negations": ["[MASK] is not X."]}\n')
    with pytest.raises(InputFormatError, match=r"P1_random.jsonl:1: field 'masked_sentences': nothing before"):
        read_relation(path, "TREx")
    write(path, '{"obj_label": "A"}\n')
    with pytest.raises(InputFormatError, match=r"P1_random.jsonl:1:"):
        read_relation(path, "TREx")


def _lama(root, relations=("P1",)):
    """Three probes per relation: objects France, France, Spain (Italy for the third of a second relation)."""
    for number, relation in enumerate(relations):
        rows = [
            {
                "sub_label": subject,
                "obj_label": obj,
                "masked_sentences": [f"{subject} is in [MASK] ."],
                "masked_negations": [f"{subject} is not in [MASK] ."],
            }
            for subject, obj in (("Paris", "France"), ("Lyon", "France"), ("Madrid", "Italy" if number else "Spain"))
        ]
        write_jsonl(root / "negated-lama" / "TREx" / "random" / f"{relation}_random.jsonl", rows)
    return root


def test_constant_and_majority_by_hand(tmp_path):
    root = _lama(tmp_path / "data")
    spain = run("constant:Spain", "negated-lama", root, tmp_path / "c")["metrics"]["overall"]
    # every probe ranks Spain first, affirmative and negated: P@1 1/3 (Madrid), overlap 1, the two score vectors equal
    assert spain["affirmative"]["p_at_1"] == APPROX(1 / 3)
    assert spain["overlap_at_1"] == 1.0 and spain["spearman"] == APPROX(1.0)
    majority = run("majority", "negated-lama", root, tmp_path / "m")
    assert majority["model"]["extra"] == {"answer": "France"}
    assert majority["metrics"]["overall"]["affirmative"]["p_at_1"] == APPROX(2 / 3)
    with pytest.raises(NegkitError, match="fixed set of answers"):  # two relations, two vocabularies
        run("constant:Spain", "negated-lama", _lama(tmp_path / "two", ("P1", "P2")), tmp_path / "c2")


def test_random_by_hand(tmp_path):
    root = _lama(tmp_path / "data")
    result = run("random", "negated-lama", root, tmp_path / "r")
    hits = overlaps = 0
    for subject, gold in (("Paris", "France"), ("Lyon", "France"), ("Madrid", "Spain")):

        def best(context):
            scores = {word: random_next(0, context, " " + word) for word in ("France", "Spain")}
            return max(sorted(scores), key=lambda word: scores[word])  # ties: the vocabulary's (sorted) order

        hits += best(f"{subject} is in") == gold
        overlaps += best(f"{subject} is in") == best(f"{subject} is not in")
    overall = result["metrics"]["overall"]
    assert overall["affirmative"]["p_at_1"] == APPROX(hits / 3) and overall["overlap_at_1"] == APPROX(overlaps / 3)
    # two candidates: rho is +1 when both forms order them alike, else -1
    assert overall["spearman"] == APPROX((2 * overlaps - 3) / 3)
    assert len(samples(result)) == 3


def test_score_of_the_samples_is_the_eval(tmp_path, capsys):
    data = shared_data_path()
    shared_data_path("negated-lama")
    out = evaluate(tmp_path / "run", "random", "negated-lama", data, ["--limit", "100"])
    metrics = assert_score_is_eval(
        out, "negated-lama", "negated-lama", data, capsys, score_only=("data_count", "source")
    )
    assert {"overall.overlap_at_1", "overall.spearman", "overall.affirmative.p_at_1"} <= set(metrics["intervals"])
    assert len(assert_compares_with_itself(out, "negated-lama", capsys, metrics)["metrics"]) == 4
