"""What the NLI suites share beyond their task kind (:class:`negkit.kit.tasks.nli_declared.NLIQuestions`): the task
entry of a declaration, negkit's 3-way prompt and the LM Evaluation Harness export of a label-word task. Each
function takes the suite's own details as arguments; this module names no benchmark."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from negkit.io.atomic import atomic_write_jsonl, atomic_write_text
from negkit.kit.harness.layout import harness_loader, harness_task_name, harness_task_yaml
from negkit.kit.suites.description import HarnessExport, TaskEntry
from negkit.kit.tasks.base import TaskData
from negkit.kit.tasks.nli_declared import NLIQuestions

#: negkit's 3-way NLI prompt (NaN-NLI, and NegNLI's MNLI and SNLI parts) and its answer words, the labels themselves.
THREE_WAY_PROMPT = (
    "Premise: {premise}\nHypothesis: {hypothesis}\n"
    "Does the premise entail the hypothesis, contradict it, or neither? "
    "Answer entailment, contradiction or neutral.\nAnswer:"
)
THREE_WAY_ANSWERS: dict[str, str] = {"entailment": "entailment", "contradiction": "contradiction", "neutral": "neutral"}


def nli_entry(spec: NLIQuestions, description: str = "") -> TaskEntry:
    """The task entry of a declared NLI task: built by ``spec.task``, run by a language model or an NLI classifier,
    taking the Harness's prompt options and the declaration's own ``options`` (``description``: else the
    declaration's)."""
    accepts = frozenset({"chat", "system_instruction"}) | spec.option_names
    return TaskEntry(spec.name, spec.task, description or spec.description, classifier=True, accepts=accepts)


def write_label_task(
    task: Any, loaded: TaskData, out: Path, data: str | None, names: tuple[str, ...], loader: str
) -> dict[str, Any]:
    """A label-word NLI task for the Harness: its documents (prompt, answer words, gold index) and YAML."""
    answers = list(task.answers)
    gold_words = {label: word for word, label in task.answers.items()}
    docs = [
        {
            "item_id": item.item_id,
            "premise": item.premise,
            "hypothesis": item.hypothesis,
            "label": item.label,
            "prompt": task.prompt.format(premise=item.premise, hypothesis=item.hypothesis),
            "choices": answers,
            "gold": answers.index(gold_words[item.label]),
        }
        for item in loaded.items
    ]
    harness = names[0]
    atomic_write_jsonl(out / f"{harness}.test.jsonl", docs)
    atomic_write_text(
        out / f"{harness}.yaml",
        harness_task_yaml(
            harness,
            loader,
            "prompt",
            "choices",
            "gold",
            " ",
            f"{task.name}: the answer words {', '.join(answers)} scored after negkit's prompt (arg-max).",
        ),
    )
    return {"docs": {"test": f"{harness}.test.jsonl"}}


def label_writer(loader: str) -> Callable[..., dict[str, Any]]:
    """:func:`write_label_task` with the name of its ``utils.py`` loader."""

    def write(task: Any, loaded: TaskData, out: Path, data: str | None, names: tuple[str, ...]) -> dict[str, Any]:
        return write_label_task(task, loaded, out, data, names, loader)

    return write


def nli_harness(spec: NLIQuestions) -> HarnessExport:
    """The Harness export of a declared NLI task: negkit's prompt and answer words, as task ``negkit_NAME``."""
    name = harness_task_name(spec.name)
    loader = harness_loader(name)
    return HarnessExport((name,), label_writer(loader), loaders={loader: spec.name})
