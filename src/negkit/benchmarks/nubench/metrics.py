"""Thunder-NUBench's error analysis (So et al., 2025, Table 6): error rate = 1 - acc; among wrong answers, the share
(percent) that picked choice2, choice3, choice4; confusion rate of a local-negation type T = items of type T
predicted as choice2 / items of type T. Choice1 is always the gold answer. The computation is the kit's
(:mod:`negkit.kit.metrics.negation_choice`); Thunder-NUBench gives its local-negation types."""

from __future__ import annotations

from collections.abc import Sequence

from negkit.kit.metrics.negation_choice import CHOICE_NAMES, WRONG_CHOICES, ErrorAnalysis
from negkit.kit.metrics.negation_choice import error_analysis as _error_analysis

__all__ = ["CHOICE_NAMES", "LOCAL_NEGATION_TYPES", "WRONG_CHOICES", "ErrorAnalysis", "error_analysis"]

#: Local-negation types for which a confusion rate is reported (``non-applicable`` items have no choice2).
LOCAL_NEGATION_TYPES: tuple[str, ...] = ("relative_part", "pp_part", "compound_part", "adverb_part")


def error_analysis(predicted_names: Sequence[str], choice2_types: Sequence[str]) -> ErrorAnalysis:
    """Error analysis from each item's predicted choice name (``choice1``..``choice4``) and its ``choice2_type``.

    The gold answer is always ``choice1``.
    """
    return _error_analysis(predicted_names, choice2_types, LOCAL_NEGATION_TYPES)
