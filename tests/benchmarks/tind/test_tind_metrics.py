"""TIND metrics against hand-computed cases and the spec's reference table (authors' scorer on raw-public.zip)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from tind_support import public_groups

from negkit.benchmarks.tind.data import PATTERN_NAMES, TruthItem, make_item_id
from negkit.benchmarks.tind.metrics import (
    COHERENT,
    EMPTY_CELL,
    INCOHERENT,
    accuracy,
    group_coherence,
    tind_metrics,
)

NEGATIONS = {
    "aff": ("affirmation", "none", "none"),
    "verbal": ("verbal", "analytic", "clausal"),
    "nonverbal-syn": ("non_verbal", "synthetic", "subclausal"),
    "nonverbal-ana": ("non_verbal", "analytic", "subclausal"),
}


def make_items(pattern_id: int, group_id: int, rows: list[tuple[str, str, bool]]) -> list[TruthItem]:
    """Items of one group from ``(kind, negation key, gold label)`` rows; sentences are placeholders."""
    items = []
    for index, (kind, negation, label) in enumerate(rows):
        negation_type, semantic_type, syntactic_scope = NEGATIONS[negation]
        items.append(
            TruthItem(
                item_id=make_item_id(pattern_id, group_id, index),
                group_id=group_id,
                pattern_id=pattern_id,
                pattern=PATTERN_NAMES[pattern_id],
                template_id=f"{index + 1}-1",
                negation_type=negation_type,
                semantic_type=semantic_type,
                syntactic_scope=syntactic_scope,
                kind=kind,
                is_distractor=kind != "Input",
                label=label,
                sentence=f"sentence {index}",
            )
        )
    return items


# A pattern-#05 group whose labels follow the truth table: two sentences per cell.
REGULAR_ROWS = [
    ("Input", "aff", True),
    ("Input", "aff", True),
    ("Input", "verbal", False),
    ("Input", "nonverbal-syn", False),
    ("Distractor", "aff", False),
    ("Distractor", "aff", False),
    ("Distractor", "verbal", True),
    ("Distractor", "nonverbal-ana", True),
]


# ---------------------------------------------------------------------------------------------- accuracy


def test_accuracy_buckets_by_hand():
    items = make_items(
        5,
        1,
        [
            ("Input", "aff", True),  # predicted True: TP
            ("Input", "verbal", False),  # predicted True: FP
            ("Distractor", "aff", False),  # predicted False: TN
            ("Distractor", "nonverbal-syn", True),  # predicted False: FN
            ("Distractor", "nonverbal-ana", True),  # predicted True: TP
        ],
    )
    result = tind_metrics(items, [True, True, False, False, True])
    assert result["all"] == {"TP": 2, "FP": 1, "FN": 1, "TN": 1, "accuracy": 60.0}  # 3 of 5
    assert result["all_affirmations"]["accuracy"] == 100.0  # TP + TN of 2
    assert result["all_negations"] == {"TP": 1, "FP": 1, "FN": 1, "TN": 0, "accuracy": 33.33}  # 1 of 3
    assert result["input_affirmation"]["accuracy"] == 100.0
    assert result["input_negation"]["accuracy"] == 0.0
    assert result["distractor_affirmation"]["accuracy"] == 100.0
    assert result["distractor_negation"]["accuracy"] == 50.0
    analysis = result["Negation_analysis"]
    assert analysis["verbal_all"] == {"TP": 0, "FP": 1, "FN": 0, "TN": 0, "accuracy": 0.0}
    assert analysis["verbal_distractor"] == {"TP": 0, "FP": 0, "FN": 0, "TN": 0, "accuracy": 0}  # empty bucket
    assert analysis["non_verbal_all"]["accuracy"] == 50.0  # FN + TP
    assert analysis["analytic_all"]["accuracy"] == 50.0  # the verbal FP and the non-verbal analytic TP
    assert analysis["analytic_input"]["accuracy"] == 0.0
    assert analysis["analytic_distractor"]["accuracy"] == 100.0
    assert analysis["synthetic_distractor"]["accuracy"] == 0.0
    assert analysis["subclausal_all"]["accuracy"] == 50.0
    assert list(analysis)[:3] == ["verbal_all", "verbal_input", "verbal_distractor"]
    # per pattern: only the pattern present, with the same numbers
    assert result["Hypernymy"]["all"] == result["all"]
    assert "Synonymy1" not in result
    assert result["summary"] == {"items": 5, "groups": 1, "groups_with_empty_cells": 0, "patterns": ["Hypernymy"]}


def test_accuracy_rounding_and_empty_bucket():
    assert accuracy({"TP": 1, "TN": 1, "FP": 1, "FN": 0}) == 66.67
    assert accuracy({"TP": 0, "TN": 0, "FP": 0, "FN": 0}) == 0


def test_unseen_negation_value_gets_its_own_buckets():
    (item,) = make_items(5, 1, [("Input", "verbal", False)])
    odd = replace(item, semantic_type=" Meta ")  # lower-cased and stripped, as the authors' scorer does
    result = tind_metrics([odd], [False])
    assert result["Negation_analysis"]["meta_input"]["accuracy"] == 100.0


def test_mismatched_lengths():
    with pytest.raises(ValueError, match="1 predictions for 8 items"):
        tind_metrics(make_items(5, 1, REGULAR_ROWS), [True])


# ---------------------------------------------------------------------------------------------- coherence


def test_correct_predictions_are_coherent_everywhere():
    items = make_items(5, 1, REGULAR_ROWS)
    verdicts = group_coherence(5, items, [item.label for item in items])
    assert set(verdicts.values()) == {COHERENT}


def test_always_true_on_a_regular_group():
    items = make_items(5, 1, REGULAR_ROWS)
    # input aff True == input neg True: incoherent; input aff True == distractor aff True: incoherent (must differ)
    assert group_coherence(5, items, [True] * 8) == {
        "All": INCOHERENT,
        "Affirmation-Negation_Input": INCOHERENT,
        "Affirmation-Negation_Distractor": INCOHERENT,
        "Input-Distractor_Affirmation": INCOHERENT,
        "Input-Distractor_Negation": INCOHERENT,
    }


def test_all_wrong_but_consistent_is_coherent():
    items = make_items(5, 1, REGULAR_ROWS)
    assert set(group_coherence(5, items, [not item.label for item in items]).values()) == {COHERENT}


def test_mixed_cell_breaks_only_the_measures_that_use_it():
    items = make_items(5, 1, REGULAR_ROWS)
    predictions = [item.label for item in items]
    predictions[1] = False  # second input-affirmative sentence disagrees with the first
    assert group_coherence(5, items, predictions) == {
        "All": INCOHERENT,
        "Affirmation-Negation_Input": INCOHERENT,
        "Affirmation-Negation_Distractor": COHERENT,
        "Input-Distractor_Affirmation": INCOHERENT,
        "Input-Distractor_Negation": COHERENT,
    }


def test_consistent_but_partly_wrong_fails_only_all():
    items = make_items(5, 1, REGULAR_ROWS)
    predictions = [item.label for item in items]
    predictions[4] = predictions[5] = True  # both distractor-affirmative sentences wrong, consistently
    predictions[6] = predictions[7] = False  # and both distractor-negative ones: distractor cells still differ
    verdicts = group_coherence(5, items, predictions)
    # distractor aff True vs neg False: coherent; input aff True vs distractor aff True: incoherent.
    assert verdicts["Affirmation-Negation_Distractor"] == COHERENT
    assert verdicts["Input-Distractor_Affirmation"] == INCOHERENT
    assert verdicts["Input-Distractor_Negation"] == INCOHERENT
    # A-N checks both coherent, but the group is neither all correct nor all wrong.
    assert verdicts["Affirmation-Negation_Input"] == COHERENT
    assert verdicts["All"] == INCOHERENT


def test_sentences_off_the_truth_table_are_ignored_except_by_all():
    rows = REGULAR_ROWS + [("Input", "aff", False)]  # an input-affirmative sentence labelled False (as in #03)
    items = make_items(5, 1, rows)
    gold = [item.label for item in items]
    wrong_on_odd_one = gold[:-1] + [True]  # predicts the odd sentence True, like its cell mates
    verdicts = group_coherence(5, items, wrong_on_odd_one)
    assert verdicts["Affirmation-Negation_Input"] == COHERENT  # the odd sentence is filtered out
    assert verdicts["All"] == INCOHERENT  # but one wrong prediction among correct ones breaks All
    assert set(group_coherence(5, items, gold).values()) == {COHERENT}


ANTONYMY_ROWS = [
    ("Input", "aff", False),
    ("Input", "verbal", True),
    ("Distractor-1", "aff", False),
    ("Distractor-2", "aff", False),
    ("Distractor-1", "nonverbal-ana", True),
    ("Distractor-2", "verbal", True),
    ("Input", "aff", True),  # off the #02/#04 table (input affirmative should be False): filtered
]


@pytest.mark.parametrize("pattern_id", [2, 4])
def test_antonymy_truth_table(pattern_id):
    items = make_items(pattern_id, 1, ANTONYMY_ROWS)
    gold = [item.label for item in items]
    assert set(group_coherence(pattern_id, items, gold).values()) == {COHERENT}
    # always True: affirmation vs negation equal -> incoherent; input vs distractor equal -> coherent for #02/#04
    assert group_coherence(pattern_id, items, [True] * len(items)) == {
        "All": INCOHERENT,
        "Affirmation-Negation_Input": INCOHERENT,
        "Affirmation-Negation_Distractor": INCOHERENT,
        "Input-Distractor_Affirmation": COHERENT,
        "Input-Distractor_Negation": COHERENT,
    }
    # the same rows read with the regular table: the only input-negative sentence is labelled True, off that
    # table, so the input-negative cell is empty
    regular = group_coherence(5, make_items(5, 1, ANTONYMY_ROWS), gold)
    assert regular["Affirmation-Negation_Input"] == EMPTY_CELL
    assert regular["Input-Distractor_Affirmation"] == COHERENT  # kept input aff True vs distractor aff False


def test_empty_cells_are_incoherent_and_counted():
    no_distractor_negation = make_items(
        9, 1, [("Input", "aff", True), ("Input", "verbal", False), ("Distractor", "aff", False)]
    )
    verdicts = group_coherence(9, no_distractor_negation, [True, False, False])
    assert verdicts == {
        "All": EMPTY_CELL,
        "Affirmation-Negation_Input": COHERENT,
        "Affirmation-Negation_Distractor": EMPTY_CELL,
        "Input-Distractor_Affirmation": COHERENT,
        "Input-Distractor_Negation": EMPTY_CELL,
    }
    # a cell emptied by filtering (its only sentence is off the table), next to a mixed cell: the mixed cell
    # decides first, as in the authors' code, so that measure is plainly incoherent
    mixed = make_items(
        9,
        2,
        [
            ("Input", "aff", True),
            ("Input", "aff", True),
            ("Input", "verbal", True),
            ("Distractor", "aff", False),
            ("Distractor", "verbal", True),
        ],
    )
    mixed_verdicts = group_coherence(9, mixed, [True, False, False, False, True])
    assert mixed_verdicts["Affirmation-Negation_Input"] == INCOHERENT
    assert mixed_verdicts["Input-Distractor_Negation"] == EMPTY_CELL
    assert mixed_verdicts["All"] == INCOHERENT

    regular = make_items(9, 3, REGULAR_ROWS)
    items = no_distractor_negation + mixed + regular
    predictions = [True, False, False] + [True, False, False, False, True] + [item.label for item in regular]
    coherence = tind_metrics(items, predictions)["coherence_scores"]
    # All: group 1 empty, group 2 incoherent, group 3 coherent -> 1 of 3
    assert coherence["All"] == {"Coherent": 1, "Incoherent": 2, "Empty_cells": 1, "Coherence_percentage": 33.33}
    assert coherence["Input-Distractor_Negation"] == {
        "Coherent": 1,
        "Incoherent": 2,
        "Empty_cells": 2,
        "Coherence_percentage": 33.33,
    }
    assert coherence["Affirmation-Negation_Input"]["Coherence_percentage"] == 66.67
    assert tind_metrics(items, predictions)["summary"]["groups_with_empty_cells"] == 2


def test_groups_are_pattern_and_test_id():
    # raw files number groups per pattern, so test 1 of #05 and test 1 of #06 are different groups
    five = make_items(5, 1, REGULAR_ROWS)
    six = make_items(6, 1, REGULAR_ROWS)
    result = tind_metrics(five + six, [item.label for item in five] + [True] * len(six))
    assert result["summary"]["groups"] == 2
    assert result["coherence_scores"]["All"]["Coherence_percentage"] == 50.0
    assert result["Hypernymy"]["coherence_scores"]["All"]["Coherence_percentage"] == 100.0
    assert result["Part"]["coherence_scores"]["All"]["Coherence_percentage"] == 0.0
    assert result["Part"]["all"]["accuracy"] == 50.0
    assert list(result)[-3:] == ["Hypernymy", "Part", "summary"]


# ---------------------------------------------------------------------------------------------- reference


REFERENCE = {  # spec section 1: acc all, input aff, input neg, distr aff, distr neg; coh All, A-N input, I-D aff
    "always True": ([50.26, 96.64, 2.82, 0.38, 99.76], [0.00, 0.00, 2.83]),
    "always False": ([49.74, 3.36, 97.18, 99.62, 0.24], [0.00, 0.00, 2.83]),
    "gold labels": ([100.00] * 5, [100.00] * 3),
    "always wrong": ([0.00] * 5, [100.00] * 3),
}
PREDICTORS = {
    "always True": lambda item: True,
    "always False": lambda item: False,
    "gold labels": lambda item: item.label,
    "always wrong": lambda item: not item.label,
}


@pytest.mark.parametrize("predictor", list(REFERENCE))
def test_reference_table_on_the_public_half(predictor):
    items = [item for group in public_groups() for item in group.items]
    result = tind_metrics(items, [PREDICTORS[predictor](item) for item in items])
    accuracies = [
        result[name]["accuracy"]
        for name in ("all", "input_affirmation", "input_negation", "distractor_affirmation", "distractor_negation")
    ]
    coherence = [
        result["coherence_scores"][name]["Coherence_percentage"]
        for name in ("All", "Affirmation-Negation_Input", "Input-Distractor_Affirmation")
    ]
    assert (accuracies, coherence) == REFERENCE[predictor]
    assert result["summary"]["groups"] == 2052 and result["summary"]["groups_with_empty_cells"] == 0
    assert len(result["summary"]["patterns"]) == 11
