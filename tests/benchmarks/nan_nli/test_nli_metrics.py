"""NaN-NLI and ScoNe metrics against hand-computed cases."""

from __future__ import annotations

import pytest

from negkit.benchmarks.nan_nli.data import NaNNLIItem
from negkit.benchmarks.nan_nli.metrics import (
    NO_NEGATION,
    construction_error_rates,
    hypothesis_type_breakdown,
    nan_nli_report,
    operation_error_rates,
    premise_type_breakdown,
    quantification_subset,
)
from negkit.benchmarks.scone.metrics import scone_accuracy
from negkit.kit.metrics.classification import ClassScores, class_scores, macro_scores, support_weighted_f1
from negkit.kit.metrics.nli import binary_scores, confusion_matrix, standard_scores, strict_score

C, E, N = "contradiction", "entailment", "neutral"


def test_spec_check_roberta_mnli_all_is_support_weighted():
    # Truong et al. Table 5: C 0.664 (117), E 0.648 (97), N 0.207 (44) -> All 0.580.
    scores = {C: ClassScores(0, 0, 0.664, 117), E: ClassScores(0, 0, 0.648, 97), N: ClassScores(0, 0, 0.207, 44)}
    assert round(support_weighted_f1(scores), 3) == 0.580


def test_class_scores_hand_computed():
    gold = [C, C, E, N]
    pred = [C, E, E, C]
    # class C: TP 1, predicted 2, gold 2 -> P 0.5, R 0.5, F1 0.5
    assert class_scores(gold, pred, C) == ClassScores(0.5, 0.5, 0.5, 2)
    # class E: TP 1, predicted 2, gold 1 -> P 0.5, R 1, F1 2/3
    assert class_scores(gold, pred, E).f1 == pytest.approx(2 / 3)
    # class N: TP 0 -> all zero
    assert class_scores(gold, pred, N) == ClassScores(0.0, 0.0, 0.0, 1)
    # macro over present labels {C, E, N}: P (0.5 + 0.5 + 0) / 3, R (0.5 + 1 + 0) / 3, F1 (0.5 + 2/3 + 0) / 3
    assert macro_scores(gold, pred) == pytest.approx((1 / 3, 0.5, (0.5 + 2 / 3) / 3))


def _item(
    index,
    label,
    premise_id="p0",
    premise_neg=("Non-verbal",),
    hypothesis_neg=(),
    construction="c1",
    operations=(),
    quantification=False,
    condition="",
):
    return NaNNLIItem(
        f"i{index}",
        "premise",
        "hypothesis",
        label,
        "nan-nli",
        premise_id,
        condition,
        premise_negation=frozenset(premise_neg),
        hypothesis_negation=frozenset(hypothesis_neg),
        construction=construction,
        operations=tuple(operations),
        quantification=quantification,
    )


@pytest.fixture
def six_items():
    return [
        _item(0, C, "p0", ("Non-verbal", "Analytic"), ("Verbal",), "quant", ("A", "B"), True),
        _item(1, E, "p0", ("Non-verbal", "Analytic"), (), "quant", ("A",), True),
        _item(2, N, "p0", ("Non-verbal", "Analytic"), ("Verbal",), "quant", ("B",), False),
        _item(3, C, "p1", ("Verbal",), (), "coord", ("B",), False),
        _item(4, E, "p1", ("Verbal",), ("Non-verbal",), "coord", (), False),
        _item(5, C, "p2", ("Verbal", "Synthetic"), (), "coord", ("A",), True),
    ]


PRED = [C, E, C, C, E, E]  # wrong: item 2 (N->C) and item 5 (C->E)


def test_standard_and_binary(six_items):
    standard = standard_scores(six_items, PRED)
    # C: gold {0,3,5}, predicted {0,2,3}: TP 2 -> P 2/3, R 2/3, F1 2/3
    assert standard.per_class[C].f1 == pytest.approx(2 / 3)
    # E: gold {1,4}, predicted {1,4,5}: TP 2 -> P 2/3, R 1, F1 0.8
    assert standard.per_class[E].f1 == pytest.approx(0.8)
    # N: gold {2}, never predicted -> 0
    assert standard.per_class[N].f1 == 0.0
    # All = (3 * 2/3 + 2 * 0.8 + 1 * 0) / 6 = 3.6 / 6 = 0.6
    assert standard.all_f1 == pytest.approx(0.6)
    assert standard.accuracy == pytest.approx(4 / 6)
    binary = binary_scores(six_items, PRED)
    # not_entailment: gold {0,2,3,5}, predicted {0,2,3}: TP 3 -> P 1, R 3/4, F1 6/7
    assert binary.per_class["not_entailment"].f1 == pytest.approx(6 / 7)
    assert binary.per_class["entailment"].f1 == pytest.approx(0.8)
    # All = (2 * 0.8 + 4 * 6/7) / 6
    assert binary.all_f1 == pytest.approx((1.6 + 24 / 7) / 6)
    assert binary.accuracy == pytest.approx(5 / 6)


def test_strict_per_premise(six_items):
    # p0 has item 2 wrong, p1 all right, p2 wrong -> 1 of 3
    score = strict_score(six_items, PRED)
    assert (score.correct, score.total) == (1, 3)
    assert score.accuracy == pytest.approx(1 / 3)


def test_negation_type_breakdowns(six_items):
    premise = premise_type_breakdown(six_items, PRED)
    # Verbal premises: items 3,4,5 gold C,E,C pred C,E,E. Labels {C,E}: C P 1 R 1/2 F1 2/3; E P 1/2 R 1 F1 2/3
    verbal = premise["Verbal"]
    assert verbal.count == 3
    assert (verbal.precision, verbal.recall, verbal.f1) == pytest.approx((0.75, 0.75, 2 / 3))
    assert set(premise) == {"Verbal", "Non-verbal", "Analytic", "Synthetic"}
    # Synthetic premise: item 5 only, gold C pred E: C P 0 R 0; E P 0 R 0 -> all zero
    assert (premise["Synthetic"].precision, premise["Synthetic"].f1) == (0.0, 0.0)
    hypothesis = hypothesis_type_breakdown(six_items, PRED)
    # No negation: items 1,3,5 gold E,C,C pred E,C,E: E P 1/2 R 1 F1 2/3; C P 1 R 1/2 F1 2/3
    assert hypothesis[NO_NEGATION].count == 3
    assert hypothesis[NO_NEGATION].f1 == pytest.approx(2 / 3)
    # Verbal hypothesis: items 0,2 gold C,N pred C,C: C P 1/2 R 1 F1 2/3; N 0 -> macro P 1/4 R 1/2 F1 1/3
    assert (hypothesis["Verbal"].precision, hypothesis["Verbal"].recall, hypothesis["Verbal"].f1) == pytest.approx(
        (0.25, 0.5, 1 / 3)
    )


def test_construction_and_operation_error_rates(six_items):
    constructions = construction_error_rates(six_items, PRED)
    assert (constructions["quant"].wrong, constructions["quant"].total) == (1, 3)
    assert constructions["coord"].rate == pytest.approx(1 / 3)
    # operations outside NaN-NLI's ten columns are not reported
    assert operation_error_rates(six_items, PRED) == {}


def test_operation_error_rates_use_known_operation_names():
    items = [
        _item(0, C, operations=("Lexical change", "Negator position change")),
        _item(1, E, operations=("Lexical change",)),
        _item(2, N, operations=()),
    ]
    rates = operation_error_rates(items, [E, E, N])
    assert (rates["Lexical change"].wrong, rates["Lexical change"].total) == (1, 2)
    assert (rates["Negator position change"].wrong, rates["Negator position change"].total) == (1, 1)
    assert list(rates) == ["Negator position change", "Lexical change"]  # the paper's column order


def test_quantification_subset_and_confusion(six_items):
    items, predicted = quantification_subset(six_items, PRED)
    assert [item.item_id for item in items] == ["i0", "i1", "i5"]
    assert predicted == [C, E, E]
    matrix = confusion_matrix(six_items, PRED)
    # true C: items 0,3,5 predicted C,C,E
    assert matrix[C] == pytest.approx({C: 2 / 3, E: 1 / 3, N: 0.0})
    assert matrix[N] == pytest.approx({C: 1.0, E: 0.0, N: 0.0})
    report = nan_nli_report(six_items, PRED)
    assert report["nan_quant"]["count"] == 3
    assert report["strict"] == {"correct": 1, "total": 3, "accuracy": pytest.approx(1 / 3)}


def test_scone_accuracy_per_condition():
    items = [
        _item(0, E, condition="no_negation"),
        _item(1, N, condition="no_negation"),
        _item(2, E, condition="two_scoped"),
        _item(3, N, condition="two_scoped"),
    ]
    result = scone_accuracy(items, [E, E, E, N])
    assert result == {"no_negation": 0.5, "two_scoped": 1.0, "overall": 0.75}


def test_length_mismatch_is_an_error(six_items):
    with pytest.raises(ValueError):
        standard_scores(six_items, PRED[:-1])


# -- Tables 8 and 9 on the real nan.csv ---------------------------------------------------------------------
# The predictor "always entailment" is wrong exactly on the pairs whose gold label is not entailment, so every
# row is (non-entailment pairs) / (pairs), counted by hand from nan.csv's label and Construction columns.


@pytest.fixture(scope="module")
def nan_items():
    from conftest import shared_data_path

    from negkit.benchmarks.nan_nli.data import read_nan_nli

    return read_nan_nli(shared_data_path("nan-nli", "nan.csv"))


#: The paper's printed Table 8 and Table 9 (RoBERTa-MNLI fine-tuned on NegNLI), labels and error rates exactly as
#: printed, in the printed order (../shared/specs/benchmarks.md section 3).
PRINTED_TABLE8 = [
    ("not + quantifier", 0.559),
    ("not + focus particle", 0.261),
    ("not + degree expression", 0.300),
    ("not + affixially-negated adjective/adverb", 0.423),
    ("not + PP", 0.067),
    ("Absolute and approximate negator", 0.333),
    ("not in verbless clause", 0.077),
    ("not in coordination", 0.000),
    ("not in implicit proposition", 0.000),
]
PRINTED_TABLE9 = [
    ("Indefinite quantifier change", 0.486),
    ("Numerical quantifier change", 0.333),
    ("Comparative quantifier change", 0.650),
    ("Negator addition or deletion", 0.364),
    ("Negator position change", 0.327),
    ("Negator token change", 0.333),
    ("Clause or sub-clause deletion", 0.333),
    ("Focus particle change", 0.375),
    ("Lexical change", 0.308),
    ("Syntactic change", 0.000),
]


def _reachable(rate: float, pairs: int) -> bool:
    """Whether a printed 3-decimal error rate is some wrong/pairs."""
    return any(round(wrong / pairs, 3) == rate for wrong in range(pairs + 1))


def test_tables_8_and_9_have_the_printed_rows_labels_and_order(nan_items):
    predicted = [E] * len(nan_items)
    table8 = construction_error_rates(nan_items, predicted)
    table9 = operation_error_rates(nan_items, predicted)
    assert list(table8) == [label for label, _ in PRINTED_TABLE8]
    assert list(table9) == [label for label, _ in PRINTED_TABLE9]
    # each printed error rate is a fraction of negkit's row: the rows hold the pairs the paper counted
    assert all(_reachable(rate, table8[label].total) for label, rate in PRINTED_TABLE8)
    assert all(_reachable(rate, table9[label].total) for label, rate in PRINTED_TABLE9)
    assert not _reachable(0.423, 14) and not _reachable(0.423, 12)  # only the merged 26 pairs give 0.423 (11/26)


def test_table8_paper_grouping_always_entailment(nan_items):
    rates = construction_error_rates(nan_items, [E] * len(nan_items))
    got = {row: (rate.wrong, rate.total) for row, rate in rates.items()}
    assert got == {
        "not + quantifier": (61, 93),
        "not + focus particle": (14, 23),
        "not + degree expression": (11, 20),
        # adjective 11 of 14 + adverb 10 of 12
        "not + affixially-negated adjective/adverb": (21, 26),
        "not + PP": (8, 15),
        # absolute (never) 5 of 11 + approximate (rarely) 8 of 16
        "Absolute and approximate negator": (13, 27),
        "not in verbless clause": (9, 13),
        "not in coordination": (16, 26),
        "not in implicit proposition": (3, 4),
    }
    # no row in the paper: "not + auxillary" (9 pairs) and "verbal vs affixal negation" (2 pairs)
    assert sum(total for _, total in got.values()) == 258 - 11
    by_value = construction_error_rates(nan_items, [E] * len(nan_items), grouping="value")
    assert len(by_value) == 13
    assert (by_value["not + auxillary"].wrong, by_value["not + auxillary"].total) == (4, 9)
    assert (by_value["verbal vs affixal negation"].wrong, by_value["verbal vs affixal negation"].total) == (1, 2)
    with pytest.raises(ValueError):
        construction_error_rates(nan_items, [E] * len(nan_items), grouping="nope")


def test_table9_both_countings_and_table1_counts(nan_items):
    from negkit.benchmarks.nan_nli.metrics import operation_applications

    predicted = [E] * len(nan_items)
    exactly_one = operation_error_rates(nan_items, predicted)  # the default
    non_zero = operation_error_rates(nan_items, predicted, counting="non-zero")
    negator = "Negator addition or deletion"
    # 118 pairs have 1 in that cell, 6 more have 2 (1 contradiction, 2 entailment, 3 neutral)
    assert (exactly_one[negator].wrong, exactly_one[negator].total) == (77, 118)
    assert (non_zero[negator].wrong, non_zero[negator].total) == (81, 124)
    # every other operation column holds only 0 and 1: both countings agree there
    assert {op: r for op, r in exactly_one.items() if op != negator} == {
        op: r for op, r in non_zero.items() if op != negator
    }
    assert (exactly_one["Negator position change"].wrong, exactly_one["Negator position change"].total) == (62, 101)
    assert (exactly_one["Syntactic change"].wrong, exactly_one["Syntactic change"].total) == (0, 4)
    # the paper's Table 1 "Count" column (printed: 74, 27, 130, 101, 6, 36, 20, 16, 13, 4) is the sum of the cells
    assert operation_applications(nan_items) == {
        "Indefinite quantifier change": 74,
        "Negator addition or deletion": 130,
        "Negator position change": 101,
        "Clause or sub-clause deletion": 36,
        "Negator token change": 6,
        "Comparative quantifier change": 20,
        "Focus particle change": 16,
        "Lexical change": 13,
        "Numerical quantifier change": 27,
        "Syntactic change": 4,
    }
    with pytest.raises(ValueError):
        operation_error_rates(nan_items, predicted, counting="sum")


def test_operation_counting_hand_computed():
    items = [
        NaNNLIItem(
            "a",
            "p",
            "h",
            C,
            "nan-nli",
            operations=("Negator addition or deletion",),
            operation_counts=(("Negator addition or deletion", 2),),
        ),
        NaNNLIItem(
            "b",
            "p",
            "h",
            E,
            "nan-nli",
            operations=("Negator addition or deletion", "Lexical change"),
            operation_counts=(("Negator addition or deletion", 1), ("Lexical change", 1)),
        ),
    ]
    predicted = [E, E]  # a wrong, b right
    one = operation_error_rates(items, predicted)
    assert (one["Negator addition or deletion"].wrong, one["Negator addition or deletion"].total) == (0, 1)
    any_ = operation_error_rates(items, predicted, counting="non-zero")
    assert (any_["Negator addition or deletion"].wrong, any_["Negator addition or deletion"].total) == (1, 2)


def test_nan_nli_report_tables_8_and_9(nan_items):
    from negkit.benchmarks.nan_nli.tables import nan_nli_tables

    report = nan_nli_report(nan_items, [E] * len(nan_items))
    assert report["operation_counting"] == "exactly-one" and report["operation_counting_other"] == "non-zero"
    assert report["constructions_left_out"] == {"not + auxillary": 9, "verbal vs affixal negation": 2}
    assert list(report["construction_error_rate"]) == [label for label, _ in PRINTED_TABLE8]
    assert list(report["operation_error_rate"]) == [label for label, _ in PRINTED_TABLE9]
    assert list(report["operation_applications"]) == [label for label, _ in PRINTED_TABLE9]
    text = nan_nli_tables(report)
    printed = [line.split(" | ")[0].lstrip("| ") for line in text.split("| construction | wrong")[1].splitlines()[2:11]]
    assert printed == [label for label, _ in PRINTED_TABLE8]  # the markdown rows, in the printed order
    assert "| Absolute and approximate negator | 13 | 27 | 0.481 |" in text
    assert "| approximate negator | Absolute and approximate negator | 8 | 16 | 0.500 |" in text
    assert "| not + auxillary | (no row in the paper) | 4 | 9 | 0.444 |" in text
    assert "| Negator addition or deletion | Negator addition or deletion | 130 | 77 | 118 | 0.653 |" in text
    assert "| Syntactic change | Syntactical changes | 4 | 0 | 4 | 0.000 |" in text
    assert "Counting `non-zero` instead: Negator addition or deletion: 81 wrong of 124 pairs, error rate 0.653." in text
    other = nan_nli_report(nan_items, [E] * len(nan_items), operation_counting="non-zero")
    assert other["operation_error_rate"]["Negator addition or deletion"]["total"] == 124
