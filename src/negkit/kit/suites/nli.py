"""What the NLI suites share (NaN-NLI, ScoNe): items rebuilt from per-sample records, the scorer of a label
predictions file, and the LM Evaluation Harness export of a label-word task. Each function takes the suite's own
details as arguments; this module names no benchmark."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from negkit.kit.data.nli import NLIItem
from negkit.kit.data.predictions import ItemIdReader, read_label_predictions
from negkit.io.atomic import atomic_write_jsonl, atomic_write_text
from negkit.kit.harness.layout import harness_task_yaml
from negkit.kit.runs import need
from negkit.kit.tasks.base import TaskData

#: negkit's 3-way NLI prompt (NaN-NLI, and NegNLI's MNLI and SNLI parts) and its answer words, the labels themselves.
THREE_WAY_PROMPT = (
    "Premise: {premise}\nHypothesis: {hypothesis}\n"
    "Does the premise entail the hypothesis, contradict it, or neither? "
    "Answer entailment, contradiction or neutral.\nAnswer:"
)
THREE_WAY_ANSWERS: dict[str, str] = {"entailment": "entailment", "contradiction": "contradiction", "neutral": "neutral"}


def nli_items(records: Sequence[dict[str, Any]], suite: str, path: Path,
              item_id_pattern: re.Pattern[str] | None = None) -> tuple[list[NLIItem], list[str]]:
    """NLI items (gold label and unit only) and predicted labels from ``negkit eval``'s records of ``suite``;
    ``item_id_pattern`` (groups ``condition`` and ``row``) reads the unit from item ids of records without a
    ``row`` field."""
    items, predicted = [], []
    for number, record in enumerate(records, start=1):
        item_id = str(record["item_id"])
        condition, row = record.get("condition", ""), record.get("row", -1)
        match = item_id_pattern.match(item_id) if item_id_pattern is not None else None
        if match and row == -1:
            condition, row = match["condition"], int(match["row"])
        items.append(NLIItem(item_id, "", "", str(need(record, "gold", path, number)), suite,
                             premise_id=str(record.get("premise_id", "")), condition=str(condition), row=int(row)))
        predicted.append(str(need(record, "prediction", path, number)))
    return items, predicted


def chosen_predictions(path: Path, items: Sequence[NLIItem], positional: ItemIdReader | None = None,
                       alternatives: str = "", words: Mapping[str, str] | None = None,
                       ) -> tuple[list[NLIItem], list[str]]:
    """The items a label predictions file predicts, in data order, and their predicted labels."""
    predicted = read_label_predictions(path, {item.item_id for item in items}, positional, alternatives, words)
    chosen = [item for item in items if item.item_id in predicted]
    return chosen, [predicted[item.item_id] for item in chosen]


def write_label_task(task: Any, loaded: TaskData, out: Path, data: str | None, names: tuple[str, ...],
                     loader: str) -> dict[str, Any]:
    """A label-word NLI task for the Harness: its documents (prompt, answer words, gold index) and YAML."""
    answers = list(task.answers)
    gold_words = {label: word for word, label in task.answers.items()}
    docs = [{"item_id": item.item_id, "premise": item.premise, "hypothesis": item.hypothesis, "label": item.label,
             "prompt": task.prompt.format(premise=item.premise, hypothesis=item.hypothesis), "choices": answers,
             "gold": answers.index(gold_words[item.label])} for item in loaded.items]
    harness = names[0]
    atomic_write_jsonl(out / f"{harness}.test.jsonl", docs)
    atomic_write_text(out / f"{harness}.yaml", harness_task_yaml(
        harness, loader, "prompt", "choices", "gold", " ",
        f"{task.name}: the answer words {', '.join(answers)} scored after negkit's prompt (arg-max)."))
    return {"docs": {"test": f"{harness}.test.jsonl"}}


def label_writer(loader: str) -> Callable[..., dict[str, Any]]:
    """:func:`write_label_task` with the name of its ``utils.py`` loader."""

    def write(task: Any, loaded: TaskData, out: Path, data: str | None, names: tuple[str, ...]) -> dict[str, Any]:
        return write_label_task(task, loaded, out, data, names, loader)

    return write
