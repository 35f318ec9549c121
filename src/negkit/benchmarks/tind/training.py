"""TIND's training sets for ``negkit finetune --train tind``: the authors' format (the sentence in the zero-shot
prompt of :class:`negkit.benchmarks.tind.task.TruthTask`, with the chat template when the model has one, or as forced; the
answer ``True`` or ``False``) with the paper's subset filters (:class:`TindFilter`). The split is the one
``negkit eval --seed SPLIT_SEED`` uses, so test groups are never trained on. Decrypted sentences stay in memory.
"""

from __future__ import annotations

import argparse
import functools
import random
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from negkit.benchmarks.tind.data import is_raw_source, normalize_split, read_tind, read_tind_raw, split_groups
from negkit.benchmarks.tind.task import CHAT_QUESTION, TruthTask, data_files, sample_groups, tind_source
from negkit.errors import NegkitError
from negkit.kit.training_data.declaration import TrainingFlag, TrainingSource, training_flag
from negkit.kit.training_data.examples import Example, TrainingData, answer_completion

#: Values of :attr:`TindFilter.polarity` and :attr:`TindFilter.kind`.
POLARITIES = ("all", "affirmative", "negative")
KINDS = ("all", "inputs", "distractors")
#: Annotation values of negative TIND sentences (negation type, semantic type, syntactic scope).
NEGATION_VALUES = ("verbal", "non_verbal", "analytic", "synthetic", "clausal", "subclausal")


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
            raise NegkitError(
                f"unknown negation annotation(s) {sorted(unknown)}; choose from {', '.join(NEGATION_VALUES)}"
            )
        if self.negation and self.polarity == "affirmative":
            raise NegkitError("a negation-type filter keeps negative sentences; it cannot go with affirmative only")

    def keeps(self, item: Any) -> bool:
        """Whether a :class:`~negkit.benchmarks.tind.types.TruthItem` passes the pattern, polarity and kind filters."""
        if self.patterns and item.pattern_id not in self.patterns:
            return False
        if item.pattern_id in self.exclude_patterns:
            return False
        if self.polarity != "all" and item.is_negated != (self.polarity == "negative"):
            return False
        if (
            self.negation
            and item.is_negated
            and not {item.negation_type, item.semantic_type, item.syntactic_scope} & set(self.negation)
        ):
            return False
        return self.kind == "all" or item.is_distractor == (self.kind == "distractors")

    def check(self, options: Any) -> None:
        """The curriculum orders sentences of both polarities: ``--affirmative-first`` with ``--polarity`` is an error."""
        if options.affirmative_first is not None and self.polarity != "all":
            raise NegkitError(
                "--affirmative-first orders TIND training sentences of both polarities "
                "(--train tind without --polarity)"
            )

    def flags(self) -> list[str]:
        """The ``negkit finetune`` flags that select this subset (none for the whole data)."""
        words: list[str] = []
        if self.patterns:
            words += ["--patterns", ",".join(map(str, self.patterns))]
        if self.exclude_patterns:
            words += ["--exclude-patterns", ",".join(map(str, self.exclude_patterns))]
        if self.polarity != "all":
            words += ["--polarity", self.polarity]
        if self.kind != "all":
            words += ["--sentences", self.kind]
        if self.negation:
            words += ["--negation", ",".join(self.negation)]
        if self.per_group is not None:
            words += ["--per-group", str(self.per_group)]
        return words


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
        "kind": "tind",
        "source": str(source),
        "split": split,
        "split_seed": split_seed,
        "filter": asdict(subset),
        "limit": limit,
        "limit_seed": limit_seed if limit is not None else None,
        "chat_template": uses_chat,
        "sentences_in_split": total,
        "sentences": len(items),
        "groups": len(groups),
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
    return tuple(read_tind_raw(source))


def _read_tind(source: str | Path, split: str, seed: int) -> list[Any]:
    """The items of ``split``; a raw release is decrypted and parsed once per process (train and dev splits)."""
    if not is_raw_source(source):
        return read_tind(source, split, seed)
    groups = split_groups(list(_read_whole_tind(source)), seed)[normalize_split(split)]
    return [item for group in groups for item in group.items]


def _user_message(sentence: str) -> str:
    """The zero-shot user turn of the chat prompt (as in :meth:`TruthTask.prompt`)."""
    return f"{CHAT_QUESTION} {sentence.strip()}"


def _build(model: Any, options: Any, split: str, limit: int | None) -> TrainingData:
    """``negkit finetune``'s TIND examples: the split and filters of ``options`` (a FinetuneOptions)."""
    return tind_examples(
        model, options.data, split, options.split_seed, subset_of(options), options.chat, limit, options.seed
    )


def _content_free(model: Any, options: Any) -> Example:
    """The zero-shot prompt with the sentence "N/A", and the True and False completions (the answer-prior guard)."""
    task = TruthTask(chat=options.chat)
    prompt = task.prompt("N/A", model)
    uses_chat = task.uses_chat(model)
    answers = tuple(
        answer_completion(model, prompt, _user_message("N/A"), answer, uses_chat)[0] for answer in ("True", "False")
    )
    return Example(prompt, answers[0], False, "content-free", format="tind", choices=answers)


def _check(options: Any) -> None:
    _read_tind(tind_source(options.data), options.split, options.split_seed)


def pattern_list(text: str) -> tuple[int, ...]:
    """An argparse type: pattern numbers such as ``1,5,6`` (the range is checked by :class:`TindFilter`)."""
    try:
        numbers = tuple(int(part) for part in text.split(",") if part.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected pattern numbers such as 1,5,6, got {text!r}") from None
    if not numbers:
        raise argparse.ArgumentTypeError("expected at least one pattern number")
    return numbers


def word_list(text: str) -> tuple[str, ...]:
    """An argparse type: comma-separated words (blank entries dropped)."""
    return tuple(part.strip() for part in text.split(",") if part.strip())


#: ``negkit finetune``'s flags for TIND's training data (the help texts of ``negkit finetune --help``).
FLAGS: tuple[TrainingFlag, ...] = (
    training_flag("--patterns", type=pattern_list, help="TIND: only these patterns, e.g. 1,5,6"),
    training_flag("--exclude-patterns", type=pattern_list, help="TIND: leave these patterns out (held out)"),
    training_flag(
        "--polarity", choices=POLARITIES, default="all", help="TIND: only affirmative or only negative sentences"
    ),
    training_flag(
        "--sentences",
        choices=KINDS,
        default="all",
        help="TIND: only input sentences (no distractors) or only distractor sentences",
    ),
    training_flag(
        "--negation",
        type=word_list,
        metavar="TYPE,...",
        help="TIND: of the negative sentences keep those of these types (verbal, non_verbal, analytic, "
        "synthetic, clausal, subclausal); with all polarities: affirmative plus one negation type",
    ),
    training_flag(
        "--per-group",
        type=int,
        metavar="N",
        help="TIND: at most N sentences of each group (balanced over affirmative/negative and "
        "input/distractor, drawn with --seed; --limit then counts thinned groups): more words per step",
    ),
    training_flag(
        "--affirmative-first",
        type=int,
        metavar="N",
        help="TIND: a curriculum: first N affirmative sentences drawn from the training sentences "
        "(the label is then the lexical fact alone), then all of them, in a fixed order",
    ),
)


def _options(values: Mapping[str, Any]) -> dict[str, Any]:
    """``FinetuneOptions`` keyword arguments from the values of :data:`FLAGS` (the inverse of
    :meth:`TindFilter.flags` and ``--affirmative-first``; the whole data is ``subset=None``, as by default)."""
    subset = TindFilter(
        patterns=values.get("patterns"),
        exclude_patterns=values.get("exclude_patterns") or (),
        polarity=values.get("polarity") or "all",
        kind=values.get("sentences") or "all",
        negation=values.get("negation") or (),
        per_group=values.get("per_group"),
    )
    return {"subset": None if subset == TindFilter() else subset, "affirmative_first": values.get("affirmative_first")}


def subset_of(options: Any) -> TindFilter:
    """The TIND subset of a ``FinetuneOptions`` (the whole data when it names none)."""
    return options.subset if isinstance(options.subset, TindFilter) else TindFilter()


TRAINING = TrainingSource(
    "tind",
    _build,
    "the TIND train split (--dev split: its validation split)",
    check=_check,
    dev_split=True,
    curriculum=True,
    own_limit=True,
    flags=FLAGS,
    options=_options,
    content_free=_content_free,
    in_distribution="tind",
)
