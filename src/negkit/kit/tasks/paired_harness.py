"""The LM Evaluation Harness export of a :class:`~negkit.kit.tasks.paired.PairedQuestions` benchmark.

The Harness scores one document at a time, so each part of the pairs (``affirmative`` / ``negated``, ``original`` /
``negated``, ...) is its own Harness task, ``negkit_NAME_PART``, over the same documents file
(``negkit_NAME.test.jsonl``: one row per item and part, ``item_id``, ``part``, the group, ``prompt``, ``choices``,
``gold``), read by a loader that keeps that part's rows. A part's Harness ``acc`` is negkit's ``PART.accuracy``; the
measures across the twins (``consistency``, ``both_correct``, a benchmark's own such as a gap) pair the parts' logged
samples by ``item_id`` (``--log_samples``), as negkit's records do.

The answers are scored as written after the prompt (target delimiter ``""``: the kit's paired answers carry their
own leading space). A ``continuation`` benchmark is exactly the Harness's multiple choice; a ``first-token`` one
(negkit compares the answers' first sub-tokens) equals it where each answer is a single token. A part with several
right answers (``also_right``) makes every ``gold`` of the task a list of indices, the Harness's multiple targets
(right when the arg-max is any of them). A benchmark asked with the chat template where the model has one
(``chat="auto"``) gets two tasks per part, as TIND: ``negkit_NAME_PART`` with the chat prompt (run with
``--apply_chat_template``) and ``negkit_NAME_PART_plain``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from negkit.io.atomic import atomic_write_jsonl, atomic_write_text
from negkit.kit.harness.layout import harness_task_name, harness_task_yaml
from negkit.kit.tasks.base import TaskData
from negkit.kit.tasks.paired import PairedQuestions


def paired_base(spec: PairedQuestions) -> str:
    """The Harness name of ``spec``'s documents (``negkit_`` + the task's name, ``-`` as ``_``)."""
    return harness_task_name(spec.name)


def paired_task_names(spec: PairedQuestions) -> dict[str, tuple[str, ...]]:
    """Part -> its Harness task names (the chat task first, then the plain one, where ``chat="auto"``)."""
    base = paired_base(spec)
    if spec.chat == "auto":
        return {part: (f"{base}_{part}", f"{base}_{part}_plain") for part in spec.parts}
    return {part: (f"{base}_{part}",) for part in spec.parts}


def paired_loader(spec: PairedQuestions, part: str) -> str:
    """The ``utils.py`` function that loads one part's documents."""
    return f"load_{paired_base(spec).removeprefix('negkit_')}_{part}"


def paired_utils_source(spec: PairedQuestions) -> str:
    """The loaders of the parts' documents, for the exported ``utils.py`` (``_load_part`` is in its shared part)."""
    return "\n\n".join(
        f"def {paired_loader(spec, part)}(**_options: object) -> object:\n"
        f'    """The {part} part of the documents negkit selected for {spec.name}."""\n'
        f"    return _load_part({spec.name!r}, {part!r})\n"
        for part in spec.parts
    )


def write_paired_harness(task: Any, loaded: TaskData, out: Path) -> dict[str, Any]:
    """The documents (one row per item and part) and one YAML file per part (and prompt), for the Harness."""
    spec: PairedQuestions = task.spec
    base, names = paired_base(spec), paired_task_names(spec)
    several = any(part.also_right for item in loaded.items for part in item.parts.values())
    docs = []
    for item in loaded.items:
        for name in spec.parts:
            part = item.parts[name]
            doc = {"item_id": item.item_id, "part": name, spec.group_field: item.group, "prompt": part.prompt}
            if spec.chat == "auto":
                doc["prompt_chat"] = part.chat_prompt or part.prompt
            gold: int | list[int] = [part.gold, *part.also_right] if several else part.gold
            docs.append({**doc, "choices": list(part.choices), "gold": gold})
    atomic_write_jsonl(out / f"{base}.test.jsonl", docs)
    style = "first sub-token of each answer (equal where it is one token)" if spec.style == "first-token" else "arg-max"
    for part, harness in names.items():
        prompts = (("prompt_chat", "chat prompt: run with --apply_chat_template"), ("prompt", "plain prompt"))
        for name, (field, how) in zip(harness, prompts if spec.chat == "auto" else (("prompt", "plain prompt"),)):
            atomic_write_text(
                out / f"{name}.yaml",
                harness_task_yaml(
                    name,
                    paired_loader(spec, part),
                    field,
                    "choices",
                    "gold",
                    "",
                    f"{spec.name}, part {part} ({how}): the answers scored after the prompt, {style}.",
                ),
            )
    return {"docs": {"test": f"{base}.test.jsonl"}, "parts": {part: list(harness) for part, harness in names.items()}}


def paired_readme(spec: PairedQuestions) -> Any:
    """The README's command lines of a ``chat="auto"`` benchmark (None otherwise: listed with the plain tasks)."""
    if spec.chat != "auto":
        return None
    names = paired_task_names(spec)

    def readme(base: str, entry: dict[str, Any]) -> list[str]:
        chat, plain = ",".join(n[0] for n in names.values()), ",".join(n[1] for n in names.values())
        return [
            f"# {spec.name}, chat prompt (negkit's default for a model with a chat template)",
            f"{base} --tasks {chat} --apply_chat_template --log_samples --output_path OUT",
            f"# {spec.name}, plain prompt (a model without a chat template)",
            f"{base} --tasks {plain} --log_samples --output_path OUT",
        ]

    return readme


def paired_notes(spec: PairedQuestions) -> Any:
    """The README's note on what the parts' tasks give of negkit's metrics."""

    def notes(entry: dict[str, Any]) -> list[str]:
        parts = ", ".join(f"`{names[0]}`: `{part}.accuracy`" for part, names in entry["parts"].items())
        return [
            f"{spec.name}: each part is one Harness task whose `acc` is negkit's accuracy on that part ({parts}); "
            f"negkit's `accuracy` is their mean (every item has every part), and the measures across "
            f"{' and '.join(spec.twins)} pair the tasks' `--log_samples` documents by `item_id`.",
            "",
        ]

    return notes
