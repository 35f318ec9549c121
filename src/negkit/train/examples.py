"""Training examples for supervised fine-tuning: a prompt and the completion the model should write.

Three sources, each rendered exactly the way ``negkit eval`` asks the same model, so that what is trained is what
is measured:

- **TIND** (:func:`tind_examples`): the authors' format: the sentence in the zero-shot prompt of
  :class:`negkit.tasks.tind.TruthTask` (with the chat template when the model has one, or as forced), the answer
  ``True`` or ``False``; with the paper's subset filters (:class:`TindFilter`). Decrypted sentences stay in memory.
- **Thunder-NUBench** (:func:`nubench_examples`): the sentence-negation pairs in the paper's SFT format (prompt 7's
  instruction block, ``Sentence: {premise}\\nNegation:``, the negation as the answer).
- **Prompt/completion JSON Lines** (:func:`jsonl_examples`): one ``{"prompt": ..., "completion": ...}`` object per
  line, for users' own data.

Each returns a :class:`TrainingData`: the examples and a description (source files, filters, counts and a hash of
the examples' text) for the run's configuration record.
"""

from __future__ import annotations

import functools
import hashlib
import json
import random
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from negkit.errors import InputFormatError, NegkitError
from negkit.io.textfiles import iter_jsonl

#: Values of :attr:`TindFilter.polarity` and :attr:`TindFilter.kind`.
POLARITIES = ("all", "affirmative", "negative")
KINDS = ("all", "inputs", "distractors")
#: Annotation values of negative TIND sentences (negation type, semantic type, syntactic scope).
NEGATION_VALUES = ("verbal", "non_verbal", "analytic", "synthetic", "clausal", "subclausal")


@dataclass(frozen=True)
class Example:
    """One training example. ``prompt`` is the exact context text (chat template already applied when used);
    ``completion`` is appended to it; ``eos`` says whether the tokenizer's end-of-sequence token follows."""

    prompt: str
    completion: str
    eos: bool = True
    #: Where the example came from (an item id, a file line), for error messages and counts.
    origin: str = ""
    #: TIND: whether the sentence is negative (None for other sources); :func:`affirmative_first` reads it.
    negated: bool | None = None


@dataclass
class TrainingData:
    """Examples plus what describes them in the run record (never the texts themselves)."""

    examples: list[Example]
    files: list[Path] = field(default_factory=list)
    description: dict[str, Any] = field(default_factory=dict)

    def content_sha256(self) -> str:
        """A hash of every example's prompt and completion, in order (changes with any filter or format)."""
        digest = hashlib.sha256()
        for example in self.examples:
            digest.update(json.dumps([example.prompt, example.completion, example.eos]).encode("utf-8"))
            digest.update(b"\n")
        return digest.hexdigest()


@dataclass(frozen=True)
class TindFilter:
    """The paper's subsets of TIND training data.

    ``patterns`` keeps only these pattern numbers (None: all), ``exclude_patterns`` drops some (held-out
    patterns); ``polarity`` keeps affirmative or negative sentences only; ``kind`` keeps input (non-distractor) or
    distractor sentences only; ``negation`` keeps, of the negative sentences, only those annotated with one of
    these values of negation type, semantic type or syntactic scope (``verbal``, ``non_verbal``, ``analytic``,
    ``synthetic``, ``clausal``, ``subclausal``): with ``polarity="all"`` that is the paper's "affirmative plus
    one negation type" (Table 7).
    """

    patterns: tuple[int, ...] | None = None
    exclude_patterns: tuple[int, ...] = ()
    polarity: str = "all"
    kind: str = "all"
    negation: tuple[str, ...] = ()
    #: At most this many sentences of each group (negkit's addition, not the paper's): a TIND group repeats one
    #: word pair in up to ~100 templates, so a few sentences of many groups teach more words per training step.
    per_group: int | None = None

    def __post_init__(self) -> None:
        if self.per_group is not None and self.per_group < 1:
            raise NegkitError(f"--per-group must be at least 1, got {self.per_group}")
        if self.polarity not in POLARITIES:
            raise NegkitError(f"unknown polarity {self.polarity!r}; choose one of {', '.join(POLARITIES)}")
        if self.kind not in KINDS:
            raise NegkitError(f"unknown sentence kind {self.kind!r}; choose one of {', '.join(KINDS)}")
        for number in (*(self.patterns or ()), *self.exclude_patterns):
            if not 1 <= number <= 11:
                raise NegkitError(f"TIND patterns are numbered 1 to 11, got {number}")
        if self.patterns and set(self.patterns) & set(self.exclude_patterns):
            raise NegkitError("a TIND pattern cannot be both included and excluded")
        unknown = set(self.negation) - set(NEGATION_VALUES)
        if unknown:
            raise NegkitError(f"unknown negation annotation(s) {sorted(unknown)}; choose from {', '.join(NEGATION_VALUES)}")
        if self.negation and self.polarity == "affirmative":
            raise NegkitError("a negation-type filter keeps negative sentences; it cannot go with affirmative only")

    def keeps(self, item: Any) -> bool:
        """Whether a :class:`~negkit.data.tind_types.TruthItem` passes the pattern, polarity and kind filters."""
        if self.patterns and item.pattern_id not in self.patterns:
            return False
        if item.pattern_id in self.exclude_patterns:
            return False
        if self.polarity != "all" and item.is_negated != (self.polarity == "negative"):
            return False
        if self.negation and item.is_negated and not {item.negation_type, item.semantic_type,
                                                      item.syntactic_scope} & set(self.negation):
            return False
        return self.kind == "all" or item.is_distractor == (self.kind == "distractors")


def tind_examples(
    model: Any,
    data: str | Path | None = None,
    split: str = "train",
    split_seed: int = 0,
    subset: TindFilter | None = None,
    chat: bool | None = None,
    limit: int | None = None,
    limit_seed: int = 0,
) -> TrainingData:
    """TIND sentences of ``split`` as training examples for ``model`` (a negkit language model: its chat template
    and tokenizer decide the prompt). The split is the one ``negkit eval --seed SPLIT_SEED`` uses, so test groups
    are never trained on when both use the same seed. ``chat`` forces the chat template on or off. ``limit`` takes
    about that many sentences as whole groups stratified by pattern, drawn with ``limit_seed`` (as ``negkit eval
    --limit`` does), after ``subset.per_group`` has thinned every group (:func:`thin_groups`)."""
    from negkit.tasks.tind import TruthTask, data_files, sample_groups, tind_source

    subset = subset or TindFilter()
    source = tind_source(data)
    items = _read_tind(source, split, split_seed)
    total = len(items)
    items = [item for item in items if subset.keeps(item)]
    if not items:
        raise NegkitError(f"no TIND sentences of split {split!r} in {source} pass the filters {asdict(subset)}")
    if subset.per_group is not None:
        items = thin_groups(items, subset.per_group, limit_seed)
    if limit is not None:
        items = sample_groups(items, limit, limit_seed)
    task = TruthTask(chat=chat)
    uses_chat = task.uses_chat(model)
    examples = []
    for item in items:
        prompt = task.prompt(item.sentence, model)
        answer = "True" if item.label else "False"
        completion, eos = answer_completion(model, prompt, _user_message(item.sentence), answer, uses_chat)
        examples.append(Example(prompt, completion, eos, item.item_id, item.is_negated))
    groups = sorted({item.group_key for item in items})
    patterns = sorted({item.pattern_id for item in items})
    description = {
        "kind": "tind", "source": str(source), "split": split, "split_seed": split_seed, "filter": asdict(subset),
        "limit": limit, "limit_seed": limit_seed if limit is not None else None,
        "chat_template": uses_chat, "sentences_in_split": total, "sentences": len(items), "groups": len(groups),
        "patterns": patterns,
        # (pattern, group) numbers, not sentences: `negkit eval --adapter` refuses to test on these groups
        "group_keys": [list(key) for key in groups],
    }
    return TrainingData(examples, data_files(source), description)


def thin_groups(items: Sequence[Any], per_group: int, seed: int) -> list[Any]:
    """At most ``per_group`` sentences of each TIND group, taken in turn from its four cells (affirmative or
    negative, input or distractor) so that labels and polarities stay balanced; which sentences is drawn with
    ``seed`` (and the group number, so groups differ). Items keep their input order."""
    groups: dict[tuple[int, int], list[Any]] = {}
    for item in items:
        groups.setdefault(item.group_key, []).append(item)
    kept: set[str] = set()
    for key, members in groups.items():
        rng = random.Random(f"{seed}:{key[0]}:{key[1]}")
        cells: dict[tuple[bool, bool], list[Any]] = {}
        for item in members:
            cells.setdefault((item.is_negated, item.is_distractor), []).append(item)
        queues = [rng.sample(cell, len(cell)) for _, cell in sorted(cells.items())]
        rng.shuffle(queues)
        chosen: list[Any] = []
        while len(chosen) < per_group and any(queues):
            for queue in queues:
                if queue and len(chosen) < per_group:
                    chosen.append(queue.pop())
        kept.update(item.item_id for item in chosen)
    return [item for item in items if item.item_id in kept]


@functools.lru_cache(maxsize=2)
def _read_whole_tind(source: str | Path) -> tuple[Any, ...]:
    from negkit.data.tind import read_tind_raw

    return tuple(read_tind_raw(source))


def _read_tind(source: str | Path, split: str, seed: int) -> list[Any]:
    """The items of ``split``; a raw release is decrypted and parsed once per process (train and dev splits)."""
    from negkit.data.tind import is_raw_source, normalize_split, read_tind, split_groups

    if not is_raw_source(source):
        return read_tind(source, split, seed)
    groups = split_groups(list(_read_whole_tind(source)), seed)[normalize_split(split)]
    return [item for group in groups for item in group.items]


def _user_message(sentence: str) -> str:
    """The zero-shot user turn of the chat prompt (as in :meth:`TruthTask.prompt`)."""
    from negkit.tasks.tind import CHAT_QUESTION

    return f"{CHAT_QUESTION} {sentence.strip()}"


def answer_completion(model: Any, prompt: str, user_message: str, answer: str, chat: bool) -> tuple[str, bool]:
    """The completion text after ``prompt`` and whether an EOS token follows it.

    With the chat template the completion is what the template puts after the generation prompt for an assistant
    turn holding ``answer`` (e.g. ``True<|im_end|>\\n``): the authors render the conversation with the answer and
    train on what follows the prompt. Without it the answer follows the prompt directly, then EOS.
    """
    if not chat:
        return answer, True
    tokenizer = getattr(model, "tokenizer", None)
    if tokenizer is not None:
        full = tokenizer.apply_chat_template(
            [{"role": "user", "content": user_message}, {"role": "assistant", "content": answer}],
            tokenize=False, add_generation_prompt=False,
        )
        if full.startswith(prompt) and answer in full[len(prompt):]:
            return full[len(prompt):], False
    return answer, True


def nubench_examples(model: Any, data: str | Path | None = None, chat: bool = False, prompt_id: str = "7") -> TrainingData:
    """Thunder-NUBench sentence-negation pairs in the paper's SFT format.

    Without the chat template (default; how ``negkit eval --tasks nubench`` asks): prompt ``prompt_id`` (prompt 7 =
    the instruction block, ``\\nSentence: {premise}\\nNegation:``) and the completion ``" " + hypothesis`` (the
    evaluation's target delimiter is one space), then EOS. With ``chat``: the Alpaca record as one user turn
    (instruction, a newline, input) and the hypothesis as the assistant turn, the way LLaMA-Factory renders Alpaca
    data with a chat template.
    """
    from negkit.data.nubench import NEGATION_PAIRS, find_split_file, load_negation_pairs
    from negkit.data.nubench import locate_nubench_root
    from negkit.tasks.multiple_choice import TARGET_DELIMITER, instruction_block, render_prompt

    root = locate_nubench_root(data)
    pairs = load_negation_pairs(root)
    if not pairs:
        raise NegkitError(f"no Thunder-NUBench sentence-negation pairs in {root or 'the hub data set'}")
    examples = []
    for pair in pairs:
        if chat:
            message = f"{instruction_block()}\nSentence: {pair.premise}\nNegation:"
            prompt = model.apply_chat_template([{"role": "user", "content": message}])
            completion, eos = answer_completion(model, prompt, message, pair.hypothesis, True)
        else:
            prompt, completion, eos = render_prompt(prompt_id, pair.premise), TARGET_DELIMITER + pair.hypothesis, True
        examples.append(Example(prompt, completion, eos, f"pair-{pair.index}"))
    files = [find_split_file(root, NEGATION_PAIRS, "train")] if root is not None else []
    description = {"kind": "nubench", "source": str(root) if root else "hub", "chat_template": chat,
                   "prompt_id": None if chat else prompt_id, "pairs": len(pairs)}
    return TrainingData(examples, files, description)


def check_source(train: str, data: str | Path | None, split: str = "train", split_seed: int = 0) -> None:
    """Read a training source once without a model, so that missing or malformed data is reported before any
    model loads (TIND's parsed release is kept for :func:`tind_examples`)."""
    if train == "tind":
        from negkit.tasks.tind import tind_source

        _read_tind(tind_source(data), split, split_seed)
    elif train == "nubench":
        from negkit.data.nubench import load_negation_pairs
        from negkit.data.nubench import locate_nubench_root

        load_negation_pairs(locate_nubench_root(data))
    else:
        for line, record in jsonl_objects(Path(train)):
            _prompt_completion(Path(train), line, record)


def _prompt_completion(path: Path, line: int, record: dict[str, Any]) -> tuple[str, str, bool]:
    for name in ("prompt", "completion"):
        if not isinstance(record.get(name), str):
            raise InputFormatError(path, line, f"field {name!r} must be a string (found {type(record.get(name)).__name__})")
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
    for line, record in jsonl_objects(path):
        prompt, completion, eos = _prompt_completion(path, line, record)
        if chat:
            message = prompt
            prompt = model.apply_chat_template([{"role": "user", "content": message}])
            completion, eos = answer_completion(model, prompt, message, completion, True)
        examples.append(Example(prompt, completion, eos, f"{path.name}:{line}"))
    if not examples:
        raise InputFormatError(path, None, "no examples (the file is empty)")
    return TrainingData(examples, [path], {"kind": "jsonl", "source": str(path), "chat_template": chat,
                                           "examples": len(examples)})


def jsonl_objects(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line, object)`` for each non-blank line; bad bytes, bad JSON or a non-object is ``FILE:LINE: problem``."""
    for number, record in iter_jsonl(path):
        if not isinstance(record, dict):
            raise InputFormatError(path, number, "expected a JSON object")
        yield number, record


def sample_examples(data: TrainingData, limit: int | None, seed: int) -> TrainingData:
    """At most ``limit`` examples drawn with ``seed`` (kept in file order); TIND limits are applied by groups in
    :func:`tind_examples` instead."""
    if limit is None or limit >= len(data.examples):
        return data
    if limit < 1:
        raise NegkitError(f"the example limit must be at least 1, got {limit}")
    chosen = sorted(random.Random(seed).sample(range(len(data.examples)), limit))
    return TrainingData([data.examples[index] for index in chosen], data.files,
                        {**data.description, "limit": limit, "limit_seed": seed, "examples": limit})


def affirmative_first(data: TrainingData, count: int, seed: int) -> TrainingData:
    """A curriculum for TIND: ``count`` affirmative sentences drawn from ``data`` first, then every example of
    ``data``, each part shuffled with ``seed``. The result is meant to be trained in this order (no reshuffling).

    On affirmative sentences the label is the lexical fact alone (input ``True``, distractor ``False``), which a
    small model picks up from few examples; on all sentences the label is that fact exclusive-or the negation, whose
    gradient is near zero until the model represents the fact (docs/results/finetuning.md)."""
    affirmative = [example for example in data.examples if example.negated is False]
    if count > len(affirmative):
        raise NegkitError(f"--affirmative-first {count}: the training data holds only {len(affirmative)} "
                          "affirmative TIND sentences")
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
    return (TrainingData(train, data.files, data.description),
            TrainingData(dev, data.files, {**data.description, "held_out_fraction": fraction}))


def describe_counts(examples: Sequence[Example]) -> dict[str, int]:
    """How many examples, and how many of each distinct completion when there are few (e.g. True/False)."""
    counts: dict[str, int] = {}
    for example in examples:
        counts[example.completion] = counts.get(example.completion, 0) + 1
    return counts if len(counts) <= 4 else {"distinct_completions": len(counts)}
