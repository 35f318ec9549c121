"""NaN-NLI analyses of one model's predictions: §5.1's predicted labels by negation type with chi-squared tests,
and Table 7's listing of examples with the model's labels (``negkit nan-nli analysis PREDICTIONS``).

- **Predicted labels by negation type** (§5.1): for each negation type of the hypothesis (or of the premise), the
  pairs carrying it and how many the model labelled contradiction, entailment and neutral (counts and row
  percentages; "No negation": hypotheses without negation), with the gold labels of the same pairs beside them. A
  pair carries several types (e.g. non-verbal, analytic, sub-clausal, ordinary), so the rows overlap.
- **Chi-squared tests of independence** (:func:`negkit.kit.metrics.chi_squared.chi_squared_independence`) between
  the predicted label and a split of the pairs into disjoint groups: hypotheses with negation vs without (hypothesis
  side only), and for each pair of types (verbal / non-verbal, analytic / synthetic, clausal / sub-clausal,
  ordinary / meta-linguistic) the pairs carrying the first but not the second vs the second but not the first. The
  same tests on the gold labels show how much of a dependence the data itself has.
- **Examples** (Table 7): per construction (in the order of nan.csv), the first ``per_construction`` pairs (or only
  the wrongly labelled ones) with the gold and predicted labels.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

from negkit.benchmarks.nan_nli.data import NEGATION_TYPES, NaNNLIItem
from negkit.kit.data.nli import NLI_LABELS
from negkit.kit.metrics.chi_squared import chi_squared_independence
from negkit.kit.render.markdown import markdown_table

NO_NEGATION = "No negation"
#: The disjoint splits the chi-squared tests compare (first type vs second type).
TYPE_PAIRS: tuple[tuple[str, str], ...] = (
    ("Verbal", "Non-verbal"),
    ("Analytic", "Synthetic"),
    ("Clausal", "Sub-clausal"),
    ("Ordinary", "Meta-linguistic"),
)
SIDES = ("hypothesis", "premise")


def _types(item: NaNNLIItem, side: str) -> frozenset[str]:
    return item.hypothesis_negation if side == "hypothesis" else item.premise_negation


def _counts(labels: Sequence[str]) -> dict[str, int]:
    found = Counter(labels)
    counts = {label: found[label] for label in NLI_LABELS}
    other = sum(value for label, value in found.items() if label not in NLI_LABELS)
    return counts | ({"other": other} if other else {})


def label_distribution(
    items: Sequence[NaNNLIItem], predicted: Sequence[str], side: str = "hypothesis"
) -> dict[str, dict[str, Any]]:
    """Negation type (of the ``side`` sentence) -> ``pairs``, ``predicted`` and ``gold`` label counts, and
    ``predicted_share`` (label -> % of the row's pairs); types no pair carries are left out."""
    rows: dict[str, dict[str, Any]] = {}
    for kind in (*NEGATION_TYPES, NO_NEGATION):
        chosen = [
            index
            for index, item in enumerate(items)
            if (kind in _types(item, side) if kind != NO_NEGATION else not _types(item, side))
        ]
        if not chosen:
            continue
        guesses = _counts([predicted[index] for index in chosen])
        rows[kind] = {
            "pairs": len(chosen),
            "predicted": guesses,
            "gold": _counts([items[index].label for index in chosen]),
            "predicted_share": {label: 100.0 * guesses.get(label, 0) / len(chosen) for label in NLI_LABELS},
        }
    return rows


def _groups(items: Sequence[NaNNLIItem], side: str) -> list[tuple[str, list[list[int]]]]:
    """The disjoint splits: (name, [indices of group 1, indices of group 2])."""
    splits = []
    if side == "hypothesis":
        negated = [i for i, item in enumerate(items) if item.hypothesis_negation]
        plain = [i for i, item in enumerate(items) if not item.hypothesis_negation]
        splits.append((f"negation vs {NO_NEGATION.lower()}", [negated, plain]))
    for first, second in TYPE_PAIRS:
        one = [i for i, item in enumerate(items) if first in _types(item, side) and second not in _types(item, side)]
        two = [i for i, item in enumerate(items) if second in _types(item, side) and first not in _types(item, side)]
        splits.append((f"{first} vs {second}", [one, two]))
    return splits


def distribution_tests(
    items: Sequence[NaNNLIItem], predicted: Sequence[str], side: str = "hypothesis"
) -> dict[str, dict[str, Any]]:
    """Split name -> ``groups`` (pairs in each), the chi-squared test of the predicted labels (``predicted``) and of
    the gold labels (``gold``), each ``statistic``, ``dof``, ``p_value``, ``n``, ``min_expected``, ``table``."""
    tests: dict[str, dict[str, Any]] = {}
    for name, groups in _groups(items, side):
        entry: dict[str, Any] = {"groups": [len(group) for group in groups]}
        for what, labels in (("predicted", predicted), ("gold", [item.label for item in items])):
            table = [[sum(1 for i in group if labels[i] == label) for label in NLI_LABELS] for group in groups]
            entry[what] = asdict(chi_squared_independence(table)) | {"table": table}
        tests[name] = entry
    return tests


def example_listing(
    items: Sequence[NaNNLIItem], predicted: Sequence[str], per_construction: int = 2, wrong_only: bool = False
) -> list[dict[str, Any]]:
    """Table 7's rows: per construction (nan.csv order), the first ``per_construction`` pairs (0: all; only the
    wrong ones with ``wrong_only``) with ``construction``, ``item_id``, ``premise``, ``hypothesis``, ``gold``,
    ``predicted``, ``correct``."""
    taken: Counter[str] = Counter()
    rows = []
    for item, label in zip(items, predicted):
        if wrong_only and label == item.label:
            continue
        if per_construction and taken[item.construction] >= per_construction:
            continue
        taken[item.construction] += 1
        rows.append(
            {
                "construction": item.construction,
                "item_id": item.item_id,
                "premise": item.premise,
                "hypothesis": item.hypothesis,
                "gold": item.label,
                "predicted": label,
                "correct": label == item.label,
            }
        )
    order = {name: place for place, name in enumerate(dict.fromkeys(item.construction for item in items))}
    return sorted(rows, key=lambda row: order[row["construction"]])


def nan_nli_analysis(
    items: Sequence[NaNNLIItem], predicted: Sequence[str], per_construction: int = 2, wrong_only: bool = False
) -> dict[str, Any]:
    """Every analysis of the module for both sides, and the listing."""
    if len(items) != len(predicted):
        raise ValueError("one prediction per item")
    return {
        "pairs": len(items),
        "distribution": {side: label_distribution(items, predicted, side) for side in SIDES},
        "tests": {side: distribution_tests(items, predicted, side) for side in SIDES},
        "examples": example_listing(items, predicted, per_construction, wrong_only),
    }


def _p(value: float) -> str:
    return f"{value:.3g}" if value >= 1e-4 else f"{value:.1e}"


def analysis_markdown(analysis: dict[str, Any]) -> str:
    """Markdown of :func:`nan_nli_analysis`."""
    parts = [f"### NaN-NLI analyses — {analysis['pairs']} pairs"]
    for side in SIDES:
        rows = analysis["distribution"][side]
        parts.append(
            f"Predicted labels by the negation type of the {side} (§5.1; rows overlap: a pair carries several types):"
        )
        parts.append(
            markdown_table(
                [f"{side} negation", "pairs", *(f"predicted {label}" for label in NLI_LABELS), "gold C / E / N"],
                [
                    [kind, row["pairs"]]
                    + [f"{row['predicted'][label]} ({row['predicted_share'][label]:.1f}%)" for label in NLI_LABELS]
                    + [" / ".join(str(row["gold"][label]) for label in NLI_LABELS)]
                    for kind, row in rows.items()
                ],
            )
        )
        tests = analysis["tests"][side]
        parts.append(f"Chi-squared tests of independence, groups of the {side} x label (C, E, N):")
        parts.append(
            markdown_table(
                ["groups", "pairs", "predicted: chi2 (dof)", "p", "gold: chi2 (dof)", "p", "smallest expected"],
                [
                    [
                        name,
                        " / ".join(str(n) for n in test["groups"]),
                        f"{test['predicted']['statistic']:.3f} ({test['predicted']['dof']})",
                        _p(test["predicted"]["p_value"]),
                        f"{test['gold']['statistic']:.3f} ({test['gold']['dof']})",
                        _p(test["gold"]["p_value"]),
                        f"{test['predicted']['min_expected']:.1f}",
                    ]
                    for name, test in tests.items()
                ],
            )
        )
    parts.append("Examples with the model's labels (Table 7):")
    parts.append(
        markdown_table(
            ["construction", "premise", "hypothesis", "gold", "predicted", ""],
            [
                [
                    row["construction"],
                    row["premise"],
                    row["hypothesis"],
                    row["gold"],
                    row["predicted"],
                    "✓" if row["correct"] else "✗",
                ]
                for row in analysis["examples"]
            ],
        )
    )
    parts.append(
        "A group with no pair is dropped from its test (dof 0, p 1); an expected count under 5 makes the "
        "chi-squared approximation rough."
    )
    return "\n\n".join(parts) + "\n"
