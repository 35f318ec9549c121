"""The items and records of standard-negation multiple choice (:mod:`negkit.kit.tasks.negation_choice`): an item
(:class:`ChoiceItem`), the few-shot draws (lm-eval's default sampler: one ``random.Random(seed)`` per run, ``k``
examples per item in order) and their block, and what is read back from records alone (the runs they hold, the items
as far as the estimands need them, the Harness's per-item scores, what ``negkit score`` reports)."""

from __future__ import annotations

import random
import statistics
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from negkit.errors import NegkitError
from negkit.kit.metrics.negation_choice import CHOICE_NAMES
from negkit.kit.runs import need

TARGET_DELIMITER = " "
FEWSHOT_DELIMITER = "\n\n"
FEWSHOT_SEEDS: tuple[int, ...] = (42, 1234, 3000, 5000, 7000)
#: The ``choice2_type`` of an item without a local-negation candidate.
NON_APPLICABLE = "non-applicable"
GOLD = "choice1"


@dataclass(frozen=True)
class ChoiceItem:
    """One item. ``choices`` holds choice1..choice4 as in the file; the candidates offered to a model are
    :attr:`candidates` (choice2 is left out for ``non-applicable`` items); the gold candidate is index 0."""

    item_id: str
    index: int
    wikipedia_index: int | None
    sentence: str
    choices: tuple[str, str, str, str]
    choice2_type: str
    choice2_element: str

    @property
    def candidate_names(self) -> tuple[str, ...]:
        """Which of choice1..choice4 are offered, in order."""
        if self.choice2_type == NON_APPLICABLE:
            return ("choice1", "choice3", "choice4")
        return CHOICE_NAMES

    @property
    def candidates(self) -> tuple[str, ...]:
        """The texts offered to a model, gold first."""
        return tuple(self.choices[CHOICE_NAMES.index(name)] for name in self.candidate_names)

    @property
    def gold(self) -> int:
        """Index of the correct candidate (always 0: the standard negation)."""
        return 0


def sample_fewshot(
    pool: Sequence[ChoiceItem],
    k: int,
    seed: int,
    items: Sequence[ChoiceItem] | int,
    exclude_item: bool = False,
    split: str = "validation",
) -> list[list[ChoiceItem]]:
    """The examples for each item in order: one generator seeded once, ``k`` draws per item (lm-eval's way).

    ``items`` are the items asked (or just their number). With ``exclude_item`` (the items come from the pool's
    own split) each draw takes ``k + 1``, removes the item (by content, as lm-eval compares documents) and keeps
    the first ``k``, so an item never sees itself as an example.
    """
    count = items if isinstance(items, int) else len(items)
    needed = k + 1 if exclude_item else k
    if needed > len(pool):
        raise NegkitError(f"{k}-shot needs at least {needed} few-shot items; the {split} split has {len(pool)}")
    generator = random.Random(seed)
    pool = list(pool)
    if not exclude_item:
        return [generator.sample(pool, k) for _ in range(count)]
    if isinstance(items, int):
        raise ValueError("exclude_item needs the items themselves")
    draws = []
    for item in items:
        kept = [example for example in generator.sample(pool, k + 1) if not _same_item(example, item)][:k]
        if len(kept) < k:
            kept = generator.sample([example for example in pool if not _same_item(example, item)], k)
        draws.append(kept)
    return draws


def _same_item(first: ChoiceItem, second: ChoiceItem) -> bool:
    """Equal documents (lm-eval compares the rows): same sentence and the same candidates."""
    return first.sentence == second.sentence and first.candidates == second.candidates


def fewshot_block(examples: Sequence[ChoiceItem], render: Callable[[str], str]) -> str:
    """The few-shot block put before an item's prompt (empty for zero-shot); ``render`` fills the prompt."""
    if not examples:
        return ""
    shots = [render(example.sentence) + TARGET_DELIMITER + example.candidates[example.gold] for example in examples]
    return FEWSHOT_DELIMITER.join(shots) + FEWSHOT_DELIMITER


def item_record(item: ChoiceItem, runs: dict[str, Any]) -> dict[str, Any]:
    """An item's record with the answers of each run (``runs``: run name -> ``prediction``, ``prediction_norm``,
    ...)."""
    return {
        "item_id": item.item_id,
        "sentence": item.sentence,
        "choice2_type": item.choice2_type,
        "candidates": list(item.candidate_names),
        "choices": list(item.candidates),
        "gold": GOLD,
        "runs": runs,
    }


def record_runs(records: Sequence[Mapping[str, Any]]) -> list[str]:
    """The runs the records hold, in order of first appearance."""
    return list(dict.fromkeys(run for record in records for run in record.get("runs", {})))


def items_from_records(records: Sequence[Mapping[str, Any]], path: Path) -> list[ChoiceItem]:
    """The items as far as the estimands need them (id and local-negation type; the answers stay in the records)."""
    items = []
    for number, record in enumerate(records, start=1):
        need(record, "runs", path, number)
        items.append(
            ChoiceItem(
                str(record["item_id"]),
                -1,
                None,
                str(record.get("sentence", "")),
                ("", "", "", ""),
                str(record.get("choice2_type", "")),
                "",
            )
        )
    return items


def harness_scores(records: Sequence[Mapping[str, Any]]) -> dict[str, list[float]]:
    """Per item, ``acc`` (and ``acc_norm`` where every run has it): the item's mean over its runs."""
    acc, norm = [], []
    for record in records:
        runs = list(record["runs"].values())
        acc.append(statistics.fmean(float(run["prediction"] == record["gold"]) for run in runs))
        if all(run.get("prediction_norm") is not None for run in runs):
            norm.append(statistics.fmean(float(run["prediction_norm"] == record["gold"]) for run in runs))
    scores = {"acc": acc, **({"acc_norm": norm} if len(norm) == len(acc) else {})}
    return {name: values for name, values in scores.items() if values}


def scored_metrics(metrics: dict[str, Any], name: str) -> dict[str, Any]:
    """What ``negkit score`` reports: the metrics without the eval's prompt and shots (a predictions file says
    neither), with ``source``: the name and the runs."""
    kept = {key: value for key, value in metrics.items() if key not in ("prompt_id", "num_fewshot")}
    return kept | {"source": f"{name} ({', '.join(metrics.get('runs', {}))})"}
