"""Training examples for ``negkit finetune``: a suite's training set (``--train NAME``, from the suite registry:
:attr:`negkit.kit.suites.SuiteDescription.training`, e.g. TIND's sentences or Thunder-NUBench's pairs) or a
prompt/completion JSON Lines file of the user's own (:func:`jsonl_examples`: one ``{"prompt": ...,
"completion": ...}`` object per line), and the steps common to all of them: sampling, a development split, the
affirmative-first curriculum.

Each source returns a :class:`~negkit.kit.training_data.examples.TrainingData`: the examples and a description (source
files, filters, counts and a hash of the examples' text) for the run's configuration record.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from negkit.errors import InputFormatError, NegkitError
from negkit.io.textfiles import iter_json_objects
from negkit.kit.training_data.declaration import training_source
from negkit.kit.training_data.examples import Example, TrainingData, answer_completion
from negkit.kit.training_data.task_source import REPLAY, replay_examples
from negkit.training.mix import is_mix, parse_mix


def check_source(train: str, options: Any) -> None:
    """Read a training source once without a model, so that missing or malformed data is reported before any
    model loads (a suite's source may keep what it read for the build); a mix checks each of its sources."""
    if is_mix(train):
        for part in dict.fromkeys(part.source for part in parse_mix(train)):
            if part == REPLAY:
                replay_examples()
            else:
                check_source(part, options)
        return
    source = training_source(train)
    if source is not None:
        if source.check is not None:
            source.check(options)
        return
    for line, record in iter_json_objects(Path(train)):
        _prompt_completion(Path(train), line, record)


def _prompt_completion(path: Path, line: int, record: dict[str, Any]) -> tuple[str, str, bool]:
    for name in ("prompt", "completion"):
        if not isinstance(record.get(name), str):
            raise InputFormatError(
                path, line, f"field {name!r} must be a string (found {type(record.get(name)).__name__})"
            )
    if not record["completion"]:
        raise InputFormatError(path, line, "field 'completion' is empty")
    eos = record.get("eos", True)
    if not isinstance(eos, bool):
        raise InputFormatError(path, line, "field 'eos' must be true or false")
    return record["prompt"], record["completion"], eos


def jsonl_examples(path: str | Path, model: Any = None, chat: bool = False) -> TrainingData:
    """``{"prompt": ..., "completion": ...}`` per line (extra fields ignored; ``"eos": false`` leaves EOS out).

    With ``chat`` the prompt is sent as the user turn through ``model``'s chat template and the completion is the
    assistant turn. A malformed line is an error naming the file and line.
    """
    path = Path(path)
    examples = []
    for line, record in iter_json_objects(path):
        prompt, completion, eos = _prompt_completion(path, line, record)
        if chat:
            message = prompt
            prompt = model.apply_chat_template([{"role": "user", "content": message}])
            completion, eos = answer_completion(model, prompt, message, completion, True)
        examples.append(Example(prompt, completion, eos, f"{path.name}:{line}"))
    if not examples:
        raise InputFormatError(path, None, "no examples (the file is empty)")
    return TrainingData(
        examples, [path], {"kind": "jsonl", "source": str(path), "chat_template": chat, "examples": len(examples)}
    )


def sample_examples(data: TrainingData, limit: int | None, seed: int) -> TrainingData:
    """At most ``limit`` examples drawn with ``seed`` (kept in file order); a suite's source may apply its limit
    itself instead (TIND samples whole groups)."""
    if limit is None or limit >= len(data.examples):
        return data
    if limit < 1:
        raise NegkitError(f"the example limit must be at least 1, got {limit}")
    chosen = sorted(random.Random(seed).sample(range(len(data.examples)), limit))
    return TrainingData(
        [data.examples[index] for index in chosen],
        data.files,
        {**data.description, "limit": limit, "limit_seed": seed, "examples": limit},
    )


def affirmative_first(data: TrainingData, count: int, seed: int) -> TrainingData:
    """A curriculum for TIND-like data (examples marked ``negated``): ``count`` affirmative sentences drawn from
    ``data`` first, then every example of
    ``data``, each part shuffled with ``seed``. The result is meant to be trained in this order (no reshuffling).

    On affirmative sentences the label is the lexical fact alone (input ``True``, distractor ``False``), which a
    small model picks up from few examples; on all sentences the label is that fact exclusive-or the negation, whose
    gradient is near zero until the model represents the fact (docs/results/finetuning.md)."""
    affirmative = [example for example in data.examples if example.negated is False]
    if count > len(affirmative):
        raise NegkitError(
            f"--affirmative-first {count}: the training data holds only {len(affirmative)} affirmative TIND sentences"
        )
    rng = random.Random(f"{seed}:affirmative-first")
    first = rng.sample(affirmative, count)
    rest = rng.sample(data.examples, len(data.examples))
    return TrainingData(first + rest, data.files, {**data.description, "affirmative_first": count})


def held_out(count: int, fraction: float, seed: int) -> set[int]:
    """Indices of ``fraction`` of ``count`` examples (drawn with ``seed``) held out for development."""
    if not 0 < fraction < 1:
        raise NegkitError(f"the development fraction must be between 0 and 1, got {fraction}")
    size = max(1, round(count * fraction))
    if size >= count:
        raise NegkitError(f"{count} examples are too few to hold out {fraction:.0%} for development")
    return set(random.Random(f"dev/{seed}").sample(range(count), size))


def split_dev(data: TrainingData, fraction: float, seed: int) -> tuple[TrainingData, TrainingData]:
    """Hold out ``fraction`` of the examples (drawn with ``seed``) as a development set."""
    held = held_out(len(data.examples), fraction, seed)
    train = [example for index, example in enumerate(data.examples) if index not in held]
    dev = [example for index, example in enumerate(data.examples) if index in held]
    return (
        TrainingData(train, data.files, data.description),
        TrainingData(dev, data.files, {**data.description, "held_out_fraction": fraction}),
    )


def describe_counts(examples: Sequence[Example]) -> dict[str, int]:
    """How many examples, and how many of each distinct completion when there are few (e.g. True/False)."""
    counts: dict[str, int] = {}
    for example in examples:
        counts[example.completion] = counts.get(example.completion, 0) + 1
    return counts if len(counts) <= 4 else {"distinct_completions": len(counts)}
