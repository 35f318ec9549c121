"""NaN-NLI §5.1 (predicted labels by negation type, chi-squared tests) and Table 7 (examples with the model's labels),
worked out by hand on six invented pairs, and ``negkit nan-nli analysis`` on the real file."""

from __future__ import annotations

import json
import math

import pytest
from conftest import shared_data_path

from negkit.benchmarks.nan_nli.data import NaNNLIItem
from negkit.cli import main
from negkit.studies.nan_nli.analysis import distribution_tests, example_listing, label_distribution

PREMISE = frozenset({"Non-verbal", "Sub-clausal"})
VERBAL = frozenset({"Verbal", "Clausal"})
# (hypothesis negation, gold, predicted, construction)
ROWS = [
    (VERBAL, "contradiction", "contradiction", "A"),
    (VERBAL, "contradiction", "contradiction", "A"),
    (PREMISE, "entailment", "neutral", "A"),
    (frozenset(), "entailment", "entailment", "B"),
    (frozenset(), "neutral", "entailment", "B"),
    (PREMISE, "contradiction", "contradiction", "B"),
]
ITEMS = [
    NaNNLIItem(
        f"nan-{k:03d}",
        f"P{k}",
        f"H{k}",
        gold,
        "nan-nli",
        "p0",
        premise_negation=PREMISE,
        hypothesis_negation=types,
        construction=construction,
    )
    for k, (types, gold, _guess, construction) in enumerate(ROWS)
]
PREDICTED = [guess for _types, _gold, guess, _construction in ROWS]


def test_distribution_by_hypothesis_type():
    rows = label_distribution(ITEMS, PREDICTED)
    assert list(rows) == ["Verbal", "Non-verbal", "Clausal", "Sub-clausal", "No negation"]
    assert rows["Verbal"]["predicted"] == {"contradiction": 2, "entailment": 0, "neutral": 0}
    assert rows["Non-verbal"]["predicted"] == {"contradiction": 1, "entailment": 0, "neutral": 1}
    assert rows["Non-verbal"]["predicted_share"]["neutral"] == 50.0
    assert rows["No negation"]["gold"] == {"contradiction": 0, "entailment": 1, "neutral": 1}
    premise = label_distribution(ITEMS, PREDICTED, "premise")
    assert list(premise) == ["Non-verbal", "Sub-clausal"] and premise["Non-verbal"]["pairs"] == 6


def test_chi_squared_by_hand():
    """Negation vs none, predicted: [[3, 0, 1], [0, 2, 0]]; expected [[2, 4/3, 2/3], [1, 2/3, 1/3]]; statistic
    1/2 + 4/3 + 1/6 + 1 + 8/3 + 1/3 = 6, dof 2, p = exp(-3). Verbal vs non-verbal, predicted: [[2, 0, 0],
    [1, 0, 1]], the empty entailment column dropped: expected 3/2, 1/2 per row; statistic 2 x (1/6 + 1/2) = 4/3,
    dof 1, p = erfc(sqrt(2/3))."""
    tests = distribution_tests(ITEMS, PREDICTED)
    negation = tests["negation vs no negation"]
    assert negation["groups"] == [4, 2] and negation["predicted"]["table"] == [[3, 0, 1], [0, 2, 0]]
    assert negation["predicted"]["statistic"] == pytest.approx(6.0) and negation["predicted"]["dof"] == 2
    assert negation["predicted"]["p_value"] == pytest.approx(math.exp(-3.0))
    assert negation["predicted"]["min_expected"] == pytest.approx(1 / 3)
    verbal = tests["Verbal vs Non-verbal"]["predicted"]
    assert verbal["statistic"] == pytest.approx(4 / 3) and verbal["dof"] == 1
    assert verbal["p_value"] == pytest.approx(math.erfc(math.sqrt(2 / 3)))
    assert tests["Ordinary vs Meta-linguistic"]["groups"] == [0, 0]
    assert "negation vs no negation" not in distribution_tests(ITEMS, PREDICTED, "premise")


def test_example_listing():
    assert [row["item_id"] for row in example_listing(ITEMS, PREDICTED, 1)] == ["nan-000", "nan-003"]
    wrong = example_listing(ITEMS, PREDICTED, 1, wrong_only=True)
    assert [(row["item_id"], row["gold"], row["predicted"], row["correct"]) for row in wrong] == [
        ("nan-002", "entailment", "neutral", False),
        ("nan-004", "neutral", "entailment", False),
    ]
    assert len(example_listing(ITEMS, PREDICTED, 0)) == 6


def test_command_on_the_real_file(tmp_path, capsys):
    data = shared_data_path()
    predictions = tmp_path / "all-neutral.jsonl"
    predictions.write_text("".join(json.dumps({"index": k, "prediction": "neutral"}) + "\n" for k in range(258)))
    assert main(["nan-nli", "analysis", str(predictions), "--data", str(data), "--out", str(tmp_path / "a.md")]) == 0
    out = capsys.readouterr().out
    assert "| Verbal | 125 | 0 (0.0%) | 0 (0.0%) | 125 (100.0%) | 54 / 52 / 19 |" in out
    assert "| No negation | 86 | 0 (0.0%) | 0 (0.0%) | 86 (100.0%) | 40 / 30 / 16 |" in out
    assert (tmp_path / "a.md").read_text(encoding="utf-8") == out
    assert main(["nan-nli", "analysis", str(predictions), "--data", str(data), "--json", "--examples", "0"]) == 0
    numbers = json.loads(capsys.readouterr().out)
    assert (
        len(numbers["examples"]) == 258
        and numbers["tests"]["hypothesis"]["negation vs no negation"]["predicted"]["dof"] == 0
    )
