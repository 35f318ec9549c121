"""NaN-NLI's gender-swap check (§5.3): swap the gendered words of every premise and hypothesis, evaluate the model
again on the swapped pairs, and report how its labels changed.

:func:`swap_gender` swaps the words of :data:`GENDER_PAIRS` both ways (he / she, his / her, man / woman, brother /
sister, ...; the case of the first letter kept), plus any pairs the user adds (``--swap Ed=Emma``: names are not
swapped by default). "her" is either "his" (possessive: "her cool") or "him" (object: "see her lose", "her."); negkit
reads it as "him" when the next word is missing, punctuation, or one of :data:`OBJECT_CONTEXT` (a verb or adverb that
follows an object in NaN-NLI, or a function word) and as "his" otherwise. :func:`write_swapped` writes a copy of
``nan.csv`` with the swapped sentences and every other column as it was; :func:`swap_change` compares a model's
predictions on the original and the swapped pairs.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from negkit.errors import InputFormatError, NegkitError
from negkit.io.atomic import atomic_write_text
from negkit.io.textfiles import iter_csv
from negkit.kit.data.nli import NLI_LABELS, NLIItem
from negkit.kit.metrics.nli import setting_scores

#: Gendered word pairs, swapped both ways ("her" is handled apart: see the module documentation).
GENDER_PAIRS: tuple[tuple[str, str], ...] = (
    ("he", "she"),
    ("him", "her"),
    ("his", "her"),
    ("himself", "herself"),
    ("man", "woman"),
    ("men", "women"),
    ("boy", "girl"),
    ("boys", "girls"),
    ("husband", "wife"),
    ("father", "mother"),
    ("son", "daughter"),
    ("sons", "daughters"),
    ("brother", "sister"),
    ("brothers", "sisters"),
    ("uncle", "aunt"),
    ("king", "queen"),
    ("mr", "mrs"),
    ("gentleman", "lady"),
    ("gentlemen", "ladies"),
)
#: Words after which "her" is an object ("him"), not a possessive ("his").
OBJECT_CONTEXT = frozenset(
    "lose often again too very so to and or but that the a an with at in on for from by of as than if when about "
    "into up down out off back here there now then".split()
)
_WORD = re.compile(r"[A-Za-z]+")


def swap_table(extra: Sequence[tuple[str, str]] = ()) -> dict[str, str]:
    """Lower-case word -> its swap (both directions; "her" maps to "his", fixed by context in :func:`swap_gender`)."""
    table: dict[str, str] = {}
    for left, right in (*GENDER_PAIRS, *((a.lower(), b.lower()) for a, b in extra)):
        table.setdefault(left, right)
        table.setdefault(right, left)
    table["her"] = "his"
    table["hers"] = "his"
    return table


def _cased(word: str, like: str) -> str:
    if like.isupper() and len(like) > 1:
        return word.upper()
    return word[:1].upper() + word[1:] if like[:1].isupper() else word


def swap_gender(text: str, extra: Sequence[tuple[str, str]] = ()) -> tuple[str, int]:
    """``text`` with its gendered words swapped, and how many were swapped."""
    table = swap_table(extra)
    matches = list(_WORD.finditer(text))
    pieces = []
    last = 0
    swapped = 0
    for index, match in enumerate(matches):
        word = match.group()
        lower = word.lower()
        if lower not in table:
            continue
        new = table[lower]
        if lower == "her":
            following = matches[index + 1] if index + 1 < len(matches) else None
            between = text[match.end() : following.start()] if following else text[match.end() :]
            object_form = following is None or between.strip() != "" or following.group().lower() in OBJECT_CONTEXT
            new = "him" if object_form else "his"
        pieces.append(text[last : match.start()] + _cased(new, word))
        last = match.end()
        swapped += 1
    return "".join(pieces) + text[last:], swapped


def write_swapped(source: str | Path, out: str | Path, extra: Sequence[tuple[str, str]] = ()) -> dict[str, Any]:
    """Write ``source`` (a NaN-NLI CSV) to ``out`` with ``premise`` and ``hypothesis`` swapped; return counts."""
    source, out = Path(source), Path(out)
    if source.resolve() == out.resolve():
        raise NegkitError(f"{out}: the swapped copy must not replace the original")
    rows = [values for _line, values in iter_csv(source)]
    if not rows:
        raise InputFormatError(source, 1, "empty file (expected a CSV header)")
    header = rows[0]
    if "premise" not in header or "hypothesis" not in header:
        raise InputFormatError(source, 1, "missing column(s) premise, hypothesis")
    columns = (header.index("premise"), header.index("hypothesis"))
    pairs_changed = words = 0
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    for values in rows[1:]:
        values = list(values)
        changed = False
        for column in columns:
            if column < len(values):
                values[column], count = swap_gender(values[column], extra)
                words += count
                changed = changed or count > 0
        pairs_changed += changed
        writer.writerow(values)
    out.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(out, buffer.getvalue())
    return {"pairs": len(rows) - 1, "pairs_changed": pairs_changed, "words_swapped": words, "out": str(out)}


def _scores(items: Sequence[NLIItem], predicted: Sequence[str]) -> dict[str, Any]:
    gold = [item.label for item in items]
    scores = asdict(setting_scores(gold, predicted, NLI_LABELS))
    return {"pairs": len(items), "accuracy": scores["accuracy"], "all_f1": scores["all_f1"]}


def swap_change(
    items: Sequence[NLIItem],
    before: Sequence[str],
    after: Sequence[str],
    extra: Sequence[tuple[str, str]] = (),
) -> dict[str, Any]:
    """How the labels changed from the original (``before``) to the swapped pairs (``after``): over all pairs and
    over the pairs the swap changed, accuracy and All (support-weighted F1) before and after, the pairs whose label
    changed and how (``flips``: "old -> new" counts)."""
    if not len(items) == len(before) == len(after):
        raise ValueError("one prediction per item, before and after")
    changed = [
        index
        for index, item in enumerate(items)
        if swap_gender(item.premise, extra)[1] or swap_gender(item.hypothesis, extra)[1]
    ]
    report: dict[str, Any] = {}
    for name, chosen in (("all", list(range(len(items)))), ("swapped", changed)):
        subset = [items[i] for i in chosen]
        flips: dict[str, int] = {}
        for i in chosen:
            if before[i] != after[i]:
                key = f"{before[i]} -> {after[i]}"
                flips[key] = flips.get(key, 0) + 1
        report[name] = {
            "pairs": len(chosen),
            "before": _scores(subset, [before[i] for i in chosen]) if chosen else None,
            "after": _scores(subset, [after[i] for i in chosen]) if chosen else None,
            "labels_changed": sum(flips.values()),
            "flips": dict(sorted(flips.items())),
        }
    return report


def swap_change_markdown(report: dict[str, Any]) -> str:
    lines = [
        "### NaN-NLI gender swap (§5.3): the model's labels before and after",
        "",
        "| pairs | count | accuracy before | accuracy after | All F1 before | All F1 after | labels changed |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, title in (("all", "all pairs"), ("swapped", "pairs the swap changed")):
        entry = report[name]
        if not entry["pairs"]:
            lines.append(f"| {title} | 0 | – | – | – | – | 0 |")
            continue
        b, a = entry["before"], entry["after"]
        lines.append(
            f"| {title} | {entry['pairs']} | {b['accuracy']:.3f} | {a['accuracy']:.3f} | {b['all_f1']:.3f} | "
            f"{a['all_f1']:.3f} | {entry['labels_changed']} |"
        )
    flips = report["all"]["flips"]
    lines += ["", "Changes: " + ("; ".join(f"{k}: {v}" for k, v in flips.items()) if flips else "none") + "."]
    return "\n".join(lines) + "\n"
