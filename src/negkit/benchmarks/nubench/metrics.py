"""Thunder-NUBench's error analysis (So et al., 2025, Table 6): error rate = 1 - acc; among wrong answers, the share
(percent) that picked choice2, choice3, choice4; confusion rate of a local-negation type T = items of type T
predicted as choice2 / items of type T. Choice1 is always the gold answer."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


#: Local-negation types for which a confusion rate is reported (``non-applicable`` items have no choice2).
LOCAL_NEGATION_TYPES: tuple[str, ...] = ("relative_part", "pp_part", "compound_part", "adverb_part")


WRONG_CHOICES: tuple[str, ...] = ("choice2", "choice3", "choice4")


#: Every choice name; choice1 is always the gold answer.
CHOICE_NAMES: tuple[str, ...] = ("choice1", *WRONG_CHOICES)


@dataclass(frozen=True)
class ErrorAnalysis:
    """Thunder-NUBench's error analysis of one run.

    ``error_share`` maps choice2/choice3/choice4 to the percentage of wrong answers that picked it;
    ``confusion_rate`` maps each local-negation type present to the share of its items predicted as choice2.
    """

    error_rate: float
    errors: int
    total: int
    error_share: dict[str, float]
    confusion_rate: dict[str, float]


def error_analysis(predicted_names: Sequence[str], choice2_types: Sequence[str]) -> ErrorAnalysis:
    """Error analysis from each item's predicted choice name (``choice1``..``choice4``) and its ``choice2_type``.

    The gold answer is always ``choice1``.
    """
    if len(predicted_names) != len(choice2_types):
        raise ValueError(f"{len(predicted_names)} predictions for {len(choice2_types)} items")
    wrong = [name for name in predicted_names if name != "choice1"]
    total = len(predicted_names)
    share = {name: (100.0 * wrong.count(name) / len(wrong) if wrong else 0.0) for name in WRONG_CHOICES}
    confusion: dict[str, float] = {}
    for kind in LOCAL_NEGATION_TYPES:
        of_kind = [name for name, item_kind in zip(predicted_names, choice2_types) if item_kind == kind]
        if of_kind:
            confusion[kind] = of_kind.count("choice2") / len(of_kind)
    return ErrorAnalysis(len(wrong) / total if total else 0.0, len(wrong), total, share, confusion)
