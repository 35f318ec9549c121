"""Training examples rendered by an evaluation task, so that what is trained is exactly what ``negkit eval`` asks.

A benchmark declares its training source in one line with :func:`task_training_source`: its task's requests for
the training items (the same prompt, chat template, target delimiter and answer words as its evaluation) become
examples whose completion is the gold answer's continuation and whose ``choices`` are every answer's. The task
says which answer is gold (``gold_choice(item)``: the index of the gold request, e.g.
:meth:`negkit.kit.tasks.nli_declared.NLITask.gold_choice`), or gives the whole completion itself for a written answer
(``training_completion(item)``: ``(completion, choices)`` or None to leave the item out, e.g. CondaQA's).

Items may come from the task's own split (``split="train"``) or from other data read into the task's item type
(``read``: e.g. SICK's pairs asked in NaN-NLI's format), which trains a format on data that is not the benchmark's.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from negkit.errors import InputFormatError, NegkitError
from negkit.io.textfiles import iter_csv
from negkit.kit.data.locate import locate_dataset
from negkit.kit.data.nli import read_sick
from negkit.kit.tasks.adapter import adapt
from negkit.kit.training_data.declaration import TrainingSource
from negkit.kit.training_data.examples import Example, TrainingData

#: Negation cues that mark an NLI pair as negated (for the unlikelihood loss, which acts on the negated side).
_CUES = re.compile(r"\b(?:not|no|never|nobody|nothing|none|neither|nor|without|nowhere)\b|n't\b", re.IGNORECASE)


def has_negation_cue(*texts: str) -> bool:
    """Whether any text holds a common English negation cue (``not``, ``no``, ``never``, ``n't``, ...)."""
    return any(_CUES.search(text) for text in texts)


def rendered_examples(
    task: Any,
    items: Sequence[Any],
    model: Any,
    format_name: str,
    pair: Callable[[Any], str] | None = None,
    negated: Callable[[Any], bool | None] | None = None,
) -> list[Example]:
    """``items`` as ``task`` asks them of ``model``, each with its gold answer as the completion (no EOS: the
    evaluation scores or reads the answer alone). ``pair`` gives an item's minimal-pair key, ``negated`` whether
    its input is negated."""
    own = adapt(task).training_completion
    examples = []
    for item, requests in zip(items, task.requests(items, model)):
        if own is not None:
            answer = own(item)
            if answer is None:
                continue
            completion, choices = answer
        else:
            choices = tuple(request.continuation for request in requests)
            completion = choices[task.gold_choice(item)]
        examples.append(
            Example(
                prompt=requests[0].context,
                completion=completion,
                eos=False,
                origin=str(getattr(item, "item_id", "")),
                negated=negated(item) if negated else None,
                format=format_name,
                choices=tuple(choices),
                pair=pair(item) if pair else "",
            )
        )
    if not examples:
        raise NegkitError(f"training source {format_name!r}: no item has an answer to train on")
    return examples


def task_training_source(
    name: str,
    description: str,
    task: Callable[[], Any],
    split: str = "train",
    read: Callable[[], tuple[list[Any], list[Path]]] | None = None,
    pair: Callable[[Any], str] | None = None,
    negated: Callable[[Any], bool | None] | None = None,
    content_free_item: Any = None,
    in_distribution: str | None = None,
) -> TrainingSource:
    """A training source (``negkit finetune --train NAME`` or a part of a training mix) that renders items with
    ``task()``: the task's own ``split``, or the items and files that ``read()`` returns. ``content_free_item`` is
    an item of the task's type with content-free fields ("N/A"): the answer-prior guard asks it before and after
    training."""

    def items_and_files(options: Any) -> tuple[list[Any], list[Path], Any]:
        asked = task()
        if read is not None:
            items, files = read()
            return items, files, asked
        data = asked.load(None, split, None, 0)  # found as eval finds it (--data is another source's)
        return data.items, data.files, asked

    def build(model: Any, options: Any, _split: str = split, limit: int | None = None) -> TrainingData:
        items, files, asked = items_and_files(options)
        examples = rendered_examples(asked, items, model, name, pair, negated)
        described = {"kind": "task", "task": asked.name, "split": None if read else split, "examples": len(examples)}
        return TrainingData(examples, files, {**described, "source": name})

    def check(options: Any) -> None:
        items_and_files(options)

    def content_free(model: Any, options: Any) -> Example | None:
        if content_free_item is None:
            return None
        return rendered_examples(task(), [content_free_item], model, name)[0]

    return TrainingSource(
        name,
        build,
        description,
        check=check,
        content_free=content_free,
        in_distribution=in_distribution,
    )


def sick_pairs() -> tuple[list[Any], list[Path]]:
    """SICK's 9,927 pairs (training data only: ``training/sick/SICK.txt`` under the data root)."""
    path = locate_dataset("training/sick") / "SICK.txt"
    return read_sick(path), [path]


def premise_key(item: Any) -> str:
    """The pair key of NLI pairs that share a premise (different hypotheses, often different labels)."""
    return f"premise:{item.premise_id or item.premise}"


def nli_negated(item: Any) -> bool:
    """Whether an NLI pair holds a negation cue in its premise or hypothesis."""
    return has_negation_cue(item.premise, item.hypothesis)


#: The mix part of plain replay text (``replay=N``): WikiFactCheck sentences and their contradicting edits from the
#: CANNOT sources (``training/cannot-wikifactcheck``), trained only through ``--kl-weight``.
REPLAY = "replay"
REPLAY_FILES = tuple(f"wikifactcheck_english_{number}.tsv" for number in range(5))


def replay_examples() -> TrainingData:
    """Every distinct sentence of the WikiFactCheck pairs (both sides) as replay text: the first word as the prompt,
    the rest as the completion, marked ``replay`` (no cross-entropy; the KL term keeps the model's distribution
    on ordinary text near the base model's)."""
    folder = locate_dataset("training/cannot-wikifactcheck")
    files = [folder / name for name in REPLAY_FILES]
    seen: dict[str, str] = {}
    for path in files:
        rows = iter_csv(path, delimiter="\t")
        header = next(rows, (1, []))[1]
        if header[:2] != ["sentence", "negated"]:
            raise InputFormatError(path, 1, "expected the header 'sentence<TAB>negated'")
        for line, fields in rows:
            for text in fields[:2]:
                text = text.strip()
                if " " in text:
                    seen.setdefault(text, f"{path.name}:{line}")
    examples = []
    for text, origin in seen.items():
        first, rest = text.split(" ", 1)
        examples.append(Example(first, " " + rest, False, origin, format=REPLAY, replay=True))
    return TrainingData(examples, files, {"kind": "replay", "sentences": len(examples)})
