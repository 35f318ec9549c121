"""Negated true/false statements: the reader on the real data, malformed files, the constant, majority and random
baselines on hand-made statements (numbers worked out by hand), and the one path."""

from __future__ import annotations

import pytest
from conftest import shared_data_path
from one_path import assert_compares_with_itself, assert_score_is_eval, evaluate
from probe_fixtures import random_next, run, write

from negkit.benchmarks.truth_negation import TOPICS, read_topic, read_truth_negation
from negkit.errors import InputFormatError

APPROX = pytest.approx


def test_reader_on_the_real_data():
    items = read_truth_negation(shared_data_path("truth-negation"))
    counts = {topic: sum(item.group == topic for item in items) for topic in TOPICS}
    assert counts == {
        "cities": 1496,
        "sp_en_trans": 354,
        "inventors": 406,
        "animal_class": 164,
        "element_symb": 186,
        "facts": 561,
    }
    first = items[0]
    assert (
        first.parts["affirmative"].prompt
        == "Is the following statement True or False? The city of Krasnodar is in Russia."
    )
    assert first.parts["affirmative"].gold == 0 and first.parts["negated"].gold == 1
    assert first.parts["negated"].chat_prompt.endswith(
        "Answer only True or False. The city of Krasnodar is not in Russia."
    )


def test_malformed_files(tmp_path):
    write(tmp_path / "facts.csv", "statement,label\nThe sky is blue.,1\nGrass is red.,2\n")
    write(tmp_path / "neg_facts.csv", "statement,label\nThe sky is not blue.,0\nGrass is not red.,1\n")
    with pytest.raises(InputFormatError, match=r"facts.csv:3: column 'label': expected '0' or '1', found '2'"):
        read_topic(tmp_path, "facts")
    write(tmp_path / "facts.csv", "statement,label\nThe sky is blue.,1\nGrass is red.,0\n")
    write(tmp_path / "neg_facts.csv", "statement,label\nThe sky is not blue.,1\nGrass is not red.,1\n")
    with pytest.raises(InputFormatError, match=r"neg_facts.csv:2: a negated statement must have the other label"):
        read_topic(tmp_path, "facts")
    write(tmp_path / "neg_facts.csv", "statement,label\nThe sky is not blue.,0\n")
    with pytest.raises(InputFormatError, match=r"neg_facts.csv: 1 statements for the 2 of facts.csv"):
        read_topic(tmp_path, "facts")
    write(tmp_path / "neg_facts.csv", "statement\nThe sky is not blue.\n")
    with pytest.raises(InputFormatError, match=r"neg_facts.csv:1: missing column\(s\): label"):
        read_topic(tmp_path, "facts")


#: Per topic: (statement, label) rows; the negation adds "not" and flips the label. 3 true, 2 false affirmatives.
ROWS = {
    "cities": [("Paris is in France.", 1), ("Paris is in Peru.", 0)],
    "sp_en_trans": [("'uno' means 'one'.", 1)],
    "inventors": [("Bell lived in Peru.", 0)],
    "animal_class": [("The salmon is a fish.", 1)],
    "element_symb": [],
    "facts": [],
}


def _data(root):
    folder = root / "truth-negation"
    for topic, rows in ROWS.items():
        write(folder / f"{topic}.csv", "statement,label\n" + "".join(f'"{s}",{label}\n' for s, label in rows))
        write(
            folder / f"neg_{topic}.csv",
            "statement,label\n"
            + "".join(
                f'"{s.replace(" is ", " is not ").replace(" means ", " does not mean ").replace(" lived ", " did not live ")}",'
                f"{1 - label}\n"
                for s, label in rows
            ),
        )
    return root


def test_constant_and_majority_by_hand(tmp_path):
    root = _data(tmp_path / "data")
    true = run("constant:true", "truth-negation", root, tmp_path / "t")["metrics"]["overall"]
    # every statement answered True: right on the 3 true affirmatives and the 2 true negations, never consistent
    assert true["affirmative"]["accuracy"] == APPROX(3 / 5) and true["negated"]["accuracy"] == APPROX(2 / 5)
    assert true["accuracy"] == APPROX(0.5) and true["consistency"] == 0.0 and true["both_correct"] == 0.0
    majority = run("majority", "truth-negation", root, tmp_path / "m")  # 5 True, 5 False: the tie goes to True
    assert majority["model"]["extra"] == {"answer": "True"}
    false = run("constant:False", "truth-negation", root, tmp_path / "f")["metrics"]
    assert false["overall"]["affirmative"]["accuracy"] == APPROX(2 / 5)
    assert false["topics"]["cities"]["negated"]["accuracy"] == APPROX(1 / 2)


def test_random_by_hand(tmp_path):
    result = run("random", "truth-negation", _data(tmp_path / "data"), tmp_path / "r")
    question = "Is the following statement True or False? "
    right = consistent = 0
    for record in result.records:
        says = []
        for part in ("affirmative", "negated"):
            statement = record["statement"] if part == "affirmative" else record["negated_statement"]
            true, false = (random_next(0, question + statement, answer) for answer in ("True", "False"))
            says.append(0 if true >= false else 1)
            right += says[-1] == record[part]["gold"]
        consistent += says[0] != says[1]
    overall = result["metrics"]["overall"]
    assert overall["accuracy"] == APPROX(right / 10) and overall["consistency"] == APPROX(consistent / 5)


def test_score_of_the_samples_is_the_eval(tmp_path, capsys):
    data = shared_data_path()
    shared_data_path("truth-negation")
    for model in ("random", "constant:true"):
        out = evaluate(tmp_path / model.replace(":", "-"), model, "truth-negation", data, ["--limit", "60"])
        metrics = assert_score_is_eval(
            out, "truth-negation", "truth-negation", data, capsys, score_only=("data_count", "source")
        )
        assert {"overall.accuracy", "overall.consistency", "overall.negated.accuracy"} <= set(metrics["intervals"])
        assert len(assert_compares_with_itself(out, "truth-negation", capsys, metrics)["metrics"]) == 4
