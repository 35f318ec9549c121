"""BECEL negational consistency: the reader on the real data (the README's counts), malformed files, the constant,
majority and random baselines on hand-made pairs (numbers worked out by hand), and the one path."""

from __future__ import annotations

import pytest
from conftest import shared_data_path
from one_path import assert_compares_with_itself, assert_score_is_eval, evaluate
from probe_fixtures import random_logprob, run, write

from negkit.benchmarks.becel_negation import SPECS, TASKS, read_becel
from negkit.errors import InputFormatError

APPROX = pytest.approx
SNLI = "index\tpremise\thypothesis\tlabel\thypothesis_neg\tneg_label\ttag\n"
WIC = (
    "index\tword\tsentence1\tsentence2\tstart1\tstart2\tend1\tend2\tlabel\tsentence2_neg\tneg_label\ttag\tstart_neg"
    "\tend_neg\n"
)


def test_reader_on_the_real_data():
    folder = shared_data_path("becel-negation")
    counts = {task: len(SPECS[task].read(folder, "test")) for task in TASKS}
    assert counts == {"boolq": 401, "mrpc": 290, "rte": 153, "snli": 2204, "wic": 536}
    first = SPECS["snli"].read(folder, "test")[0]
    assert first.group == "antonym" and first.parts["original"].gold == 0 and first.parts["negated"].gold == 2
    assert "Hypothesis: An old woman and old man are playing bingo." in first.parts["negated"].prompt


def test_malformed_files(tmp_path):
    path = tmp_path / "snli" / "negational.tsv"
    write(path, SNLI + "0\tA man sleeps.\tA man rests.\t0\tA man is awake.\t5\tantonym\n")
    with pytest.raises(InputFormatError, match=r"negational.tsv:2: column 'neg_label': '5' is not a label \(0 to 2\)"):
        read_becel(path)
    write(path, SNLI + "0\tA man sleeps.\tA man rests.\t0\tA man is awake.\t2\tparaphrase\n")
    with pytest.raises(
        InputFormatError,
        match=r"negational.tsv:2: column 'tag': expected 'negation', 'antonym' or 'rm_negation', found 'paraphrase'",
    ):
        read_becel(path)
    write(path, SNLI + "0\tA man sleeps.\tA man rests.\t0\n")
    with pytest.raises(InputFormatError, match=r"negational.tsv:2: expected 7 columns, found 4"):
        read_becel(path)
    write(path, "index\tpremise\tlabel\n")
    with pytest.raises(
        InputFormatError, match=r"negational.tsv:1: missing column\(s\): tag, neg_label, hypothesis, hypothesis_neg"
    ):
        read_becel(path)
    write(path, SNLI)
    with pytest.raises(InputFormatError, match=r"negational.tsv: no items"):
        read_becel(path)


SNLI_ROWS = [
    ("A man sleeps.", "A man rests.", "A man is not resting."),
    ("Kids play.", "Kids are outside.", "Kids are inside."),
    ("A dog runs.", "An animal moves.", "An animal does not move."),
]


def _data(root):
    write(
        root / "becel-negation" / "snli" / "negational.tsv",
        SNLI
        + "".join(
            f"{n}\t{p}\t{h}\t0\t{neg}\t2\t{'antonym' if n == 1 else 'negation'}\n"
            for n, (p, h, neg) in enumerate(SNLI_ROWS)
        ),
    )
    write(
        root / "becel-negation" / "wic" / "negational.tsv",
        WIC
        + "0\tbank\tThe bank is shut.\tHe robbed a bank.\t4\t12\t8\t16\t1\tHe did not rob a bank.\t1\tnegation\t0\t0\n"
        "1\tbank\tThe bank is shut.\tThe river bank.\t4\t10\t8\t14\t0\tNot the river bank.\t0\tnegation\t0\t0\n",
    )
    return root


def test_constant_and_majority_by_hand(tmp_path):
    root = _data(tmp_path / "data")
    entailment = run("constant:entailment", "becel-negation-snli", root, tmp_path / "e")["metrics"]["overall"]
    # every original right (entailment), every negation wrong (contradiction), the prediction never changes
    assert entailment["original"]["accuracy"] == 1.0 and entailment["negated"]["accuracy"] == 0.0
    assert entailment["negational_consistency"] == 0.0 and entailment["inconsistency"] == 1.0
    assert entailment["conditioned_consistency"] == 0.0
    contradiction = run("constant:contradiction", "becel-negation-snli", root, tmp_path / "c")["metrics"]
    assert contradiction["overall"]["negated"]["accuracy"] == 1.0
    assert contradiction["overall"]["conditioned_consistency"] is None  # no original right
    # gold answers: 3 entailment, 3 contradiction: the tie goes to the first answer
    majority = run("majority", "becel-negation-snli", root, tmp_path / "m")
    assert majority["model"]["extra"] == {"answer": "entailment"}
    # WiC: labels never change, so an unchanged prediction is consistent; 'yes' is right on row 0 only
    wic = run("constant:yes", "becel-negation-wic", root, tmp_path / "w")["metrics"]["overall"]
    assert wic["original"]["accuracy"] == APPROX(1 / 2) and wic["negational_consistency"] == 1.0
    assert wic["inconsistency"] == 1.0 and wic["conditioned_consistency"] == 1.0


def test_random_by_hand(tmp_path):
    result = run("random", "becel-negation-snli", _data(tmp_path / "data"), tmp_path / "r")
    template, _field, _column, answers = TASKS["snli"]
    changed = 0
    for premise, hypothesis, negated in SNLI_ROWS:
        says = []
        for text in (hypothesis, negated):
            scores = [
                random_logprob(0, template.format(premise=premise, hypothesis=text), answer) for answer in answers
            ]
            says.append(scores.index(max(scores)))
        changed += says[0] != says[1]
    overall = result["metrics"]["overall"]
    assert overall["negational_consistency"] == APPROX(changed / 3) and overall["inconsistency"] == APPROX(
        1 - changed / 3
    )


def test_score_of_the_samples_is_the_eval(tmp_path, capsys):
    data = shared_data_path()
    shared_data_path("becel-negation")
    for model in ("random", "constant:entailment"):
        out = evaluate(tmp_path / model.replace(":", "-"), model, "becel-negation-snli", data, ["--limit", "40"])
        metrics = assert_score_is_eval(
            out, "becel-negation-snli", "becel-negation", data, capsys, score_only=("data_count", "source")
        )
        assert {"overall.negational_consistency", "overall.inconsistency"} <= set(metrics["intervals"])
        assert len(assert_compares_with_itself(out, "becel-negation-snli", capsys, metrics)["metrics"]) == 4
