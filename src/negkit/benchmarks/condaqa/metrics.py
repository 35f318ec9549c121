"""CondaQA metrics (Ravichander et al., 2022): accuracy and group consistency over a passage and its edits.

- **Accuracy**: a prediction is correct when it equals the gold answer after normalisation (:func:`normalize_answer`:
  lower case, punctuation and the articles a/an/the removed, white space collapsed, as in SQuAD's exact match;
  ``DON'T KNOW`` becomes ``dont know``). Reported overall and per passage edit (original, paraphrase, scope,
  affirmative).
- **Group consistency**: a question asked of the original passage and of its edits forms a group
  (``(PassageID, QuestionID)``); a model is consistent on a group when it answers every question of the group
  correctly ("All"). Per edit type (paraphrase, scope, affirmative): over the groups that have both the original
  passage and that edit, the share where both answers are correct.

Pure functions: items and normalised predictions in, numbers out.
"""

from __future__ import annotations

import re
import string
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from negkit.benchmarks.condaqa.data import EDITS, QAItem

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCTUATION = set(string.punctuation)
#: Normalised forms read as "don't know" in a model's free answer.
_DONT_KNOW = ("dont know", "do not know", "i dont know", "i do not know", "unknown", "not known")


def normalize_answer(text: str) -> str:
    """SQuAD-style normalisation: lower case, no punctuation, no articles, single spaces."""
    lowered = "".join(character for character in text.lower() if character not in _PUNCTUATION)
    return " ".join(_ARTICLES.sub(" ", lowered).split())


def canonical_answer(output: str) -> str:
    """A model's free answer as a normalised answer: its first line, normalised; a leading "yes" or "no" word, or
    a "don't know" phrase, is read as that answer (``"Yes, because ..."`` -> ``yes``); anything else is compared
    whole with the gold span."""
    first_line = output.strip().split("\n", 1)[0]
    normalised = normalize_answer(first_line)
    words = normalised.split()
    if words and words[0] in ("yes", "no"):
        return words[0]
    if any(normalised == phrase or normalised.startswith(phrase + " ") for phrase in _DONT_KNOW):
        return "dont know"
    return normalised


def is_correct(item: QAItem, prediction: str) -> bool:
    """``prediction`` (normalised or not) matches the item's gold answer after normalisation."""
    return normalize_answer(prediction) == normalize_answer(item.answer)


def _share(hits: int, total: int) -> dict[str, Any]:
    return {"correct": hits, "total": total, "accuracy": hits / total if total else 0.0}


def condaqa_report(items: Sequence[QAItem], predictions: Sequence[str]) -> dict[str, Any]:
    """Accuracy (overall and per edit), group consistency (All and per edit type), the gold span answers, and the
    predicted answers (closed, empty, other)."""
    if len(items) != len(predictions):
        raise ValueError(f"{len(items)} items but {len(predictions)} predictions")
    correct = [is_correct(item, prediction) for item, prediction in zip(items, predictions)]
    per_edit = {
        name: _share(
            sum(ok for item, ok in zip(items, correct) if item.edit == edit), sum(item.edit == edit for item in items)
        )
        for edit, name in EDITS.items()
    }
    groups: dict[tuple[int, str], dict[int, bool]] = defaultdict(dict)
    for item, ok in zip(items, correct):
        groups[item.group_key][item.edit] = ok
    consistency: dict[str, dict[str, Any]] = {
        "all": _share(sum(all(group.values()) for group in groups.values()), len(groups))
    }
    for edit, name in list(EDITS.items())[1:]:
        pairs = [group for group in groups.values() if 0 in group and edit in group]
        consistency[name] = _share(sum(group[0] and group[edit] for group in pairs), len(pairs))
    sizes: dict[int, int] = defaultdict(int)
    for group in groups.values():
        sizes[len(group)] += 1
    return {
        "count": len(items),
        "accuracy": _share(sum(correct), len(items)),
        "accuracy_per_edit": per_edit,
        "consistency": consistency,
        "groups": len(groups),
        "group_sizes": {str(size): sizes[size] for size in sorted(sizes)},
        "span_answers": sum(item.is_span for item in items),
        "span_correct": sum(ok for item, ok in zip(items, correct) if item.is_span),
        "predicted_answers": predicted_answers(predictions),
    }


#: The closed answers as normalised (:func:`canonical_answer`), counted apart from empty and other answers.
CLOSED_ANSWERS = ("yes", "no", "dont know")


def predicted_answers(predictions: Sequence[str]) -> dict[str, int]:
    """How many predictions are each closed answer, empty (a model that stops at once: the collapse of a format
    trained elsewhere) or anything else (a span)."""
    counts = {answer: 0 for answer in (*CLOSED_ANSWERS, "empty", "other")}
    for prediction in predictions:
        answer = normalize_answer(prediction)
        counts[answer if answer in CLOSED_ANSWERS else "empty" if not answer else "other"] += 1
    return counts
