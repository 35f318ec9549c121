"""The LM Evaluation Harness export of a :class:`~negkit.kit.tasks.negation_choice.NegationChoice` benchmark:
each item's prompt (the chosen template with the sentence), its candidates after one space, gold 0; the task's
``description`` (text before the few-shot examples and the prompt) as the Harness's ``description``; with
``--num-fewshot K`` the few-shot split as the Harness's ``fewshot_split`` (the Harness runs one few-shot seed per
command: its fourth ``--seed`` number), as negkit draws them. Scored by ``acc`` and ``acc_norm``."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from negkit.io.atomic import atomic_write_jsonl, atomic_write_text
from negkit.kit.harness.layout import harness_loader, harness_task_yaml
from negkit.kit.tasks.base import TaskData
from negkit.kit.tasks.negation_choice import FEWSHOT_DELIMITER, TARGET_DELIMITER, NegationChoiceTask

NORM = "  - metric: acc_norm\n    aggregation: mean\n    higher_is_better: true\n"


def negation_choice_docs(task: NegationChoiceTask, items: Sequence[Any]) -> list[dict[str, Any]]:
    """The Harness documents of ``items`` asked with ``task``'s prompt."""
    return [
        {
            "item_id": item.item_id,
            "sentence": item.sentence,
            "choice2_type": item.choice2_type,
            "candidate_names": list(item.candidate_names),
            "prompt": task.render(task.prompt, item.sentence),
            "choices": list(item.candidates),
            "gold": item.gold,
        }
        for item in items
    ]


def write_negation_choice_harness(task: NegationChoiceTask, loaded: TaskData, out: Path, name: str) -> dict[str, Any]:
    """The documents (and the few-shot pool) and the task file ``NAME.yaml``; the manifest entry."""
    files = {"test": f"{name}.test.jsonl"}
    atomic_write_jsonl(out / files["test"], negation_choice_docs(task, loaded.items))
    extra = ""
    description = task.description(task.prompt)
    if description:
        extra += f"description: {json.dumps(description, ensure_ascii=False)}\n"
    if task.num_fewshot:
        files[task.fewshot_split] = f"{name}.{task.fewshot_split}.jsonl"
        atomic_write_jsonl(out / files[task.fewshot_split], negation_choice_docs(task, task.pool))
        extra += (
            f"fewshot_split: {task.fewshot_split}\nnum_fewshot: {task.num_fewshot}\n"
            f"fewshot_delimiter: {json.dumps(FEWSHOT_DELIMITER)}\n"
        )
    atomic_write_text(
        out / f"{name}.yaml",
        harness_task_yaml(
            name,
            harness_loader(name),
            "prompt",
            "choices",
            "gold",
            TARGET_DELIMITER,
            f"{task.name}, prompt {task.prompt}, {task.num_fewshot}-shot: candidates scored after the prompt.",
            extra,
            metrics=NORM,
        ),
    )
    return {"docs": files, "prompt_id": task.prompt, "num_fewshot": task.num_fewshot, "seeds": list(task.seeds)}
