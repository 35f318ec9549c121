"""A training mix: several training sources, each in its own evaluation format, in phases.

``negkit finetune --train "tind:affirmative=1600,scone=1200,sick@nan-nli=900" --phases "tind:affirmative;scone,sick@nan-nli"``
trains on 1,600 affirmative TIND sentences first, then on ScoNe's train split and SICK asked in NaN-NLI's format,
mixed. Each part is ``SOURCE[:affirmative|:negative]=COUNT``: a registered training source
(:func:`negkit.kit.suites.training_sources`; benchmarks declare them with
:func:`negkit.kit.training.task_source.task_training_source`) and how many of its examples to draw; ``replay=N``
adds N sentences of plain replay text (:func:`negkit.kit.training.task_source.replay_examples`), trained only through
the KL term (``--kl-weight``).

- **Exact label balance within each part**: ``COUNT`` splits evenly over the format's answers (the remainder to the
  first answers in order); drawing fewer of an answer than asked is an error naming the source and the answer.
  With ``--balance-by negation`` it splits evenly over answer x negated (affirmative or negated input) instead, so
  that a negation cue does not predict the answer (e.g. SICK, whose contradictions are mostly made with "not").
- **Minimal pairs in one batch**: examples that share a ``pair`` key and have different answers are drawn as one
  unit and packed into the same batch (of ``--batch-size``), for the consistency loss.
- **Phases in order** (``--phases``, parts separated by ``,``, phases by ``;``; default one phase), each phase's
  units shuffled with ``--seed``; the Trainer takes the result in this order.
- **A development set per format** (``--dev-per-format N``): N examples of every source, balanced the same way and
  held out of training (whole pairs), for the collapse guards (:mod:`negkit.kit.training.guards`).
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from negkit.errors import NegkitError
from negkit.kit.suites import training_source, training_sources
from negkit.kit.training.examples import Example, TrainingData
from negkit.kit.training.task_source import REPLAY, replay_examples

#: How many distinct completions a format may have for them to count as its closed answers.
MAX_CLOSED_ANSWERS = 6
#: What each part of a mix may be balanced over (``--balance-by``): its answers, or answer x negated input.
BALANCE_BY = ("answer", "negation")
_PART = re.compile(r"^(?P<source>[A-Za-z0-9_@.-]+?)(?::(?P<only>affirmative|negative))?=(?P<count>\d+)$")


@dataclass(frozen=True)
class MixPart:
    """One part of a mix: ``count`` examples of ``source`` (only its affirmative or negative ones when ``only``)."""

    source: str
    count: int
    only: str | None = None

    @property
    def key(self) -> str:
        return f"{self.source}:{self.only}" if self.only else self.source


def is_mix(train: str) -> bool:
    """Whether ``--train`` names a mix (``SOURCE=COUNT,...``) rather than one source or a file."""
    return "=" in train and not train.endswith((".jsonl", ".json", ".csv", ".tsv", ".txt"))


def parse_mix(text: str) -> list[MixPart]:
    """The parts of ``SOURCE[:affirmative|:negative]=COUNT,...``; an error names a malformed or unknown part."""
    parts = []
    for piece in (piece.strip() for piece in text.split(",")):
        match = _PART.match(piece)
        if not match:
            raise NegkitError(f"--train: {piece!r} is not SOURCE=COUNT or SOURCE:affirmative=COUNT (in {text!r})")
        source = match["source"]
        if training_source(source) is None and source != REPLAY:
            raise NegkitError(
                f"--train: unknown training source {source!r}; the sources are "
                f"{', '.join([*training_sources(), REPLAY])}"
            )
        if int(match["count"]) < 1:
            raise NegkitError(f"--train: {piece!r}: the count must be at least 1")
        parts.append(MixPart(source, int(match["count"]), match["only"]))
    keys = [part.key for part in parts]
    if len(set(keys)) != len(keys):
        raise NegkitError(f"--train: a part is named twice in {text!r}")
    return parts


def parse_phases(text: str | None, parts: Sequence[MixPart]) -> list[list[MixPart]]:
    """The parts of each phase, in order (``a;b,c``); every part in exactly one phase. None: one phase."""
    if not text:
        return [list(parts)]
    by_key = {part.key: part for part in parts}
    phases: list[list[MixPart]] = []
    seen: set[str] = set()
    for phase in text.split(";"):
        keys = [key.strip() for key in phase.split(",") if key.strip()]
        if not keys:
            raise NegkitError(f"--phases: an empty phase in {text!r}")
        for key in keys:
            if key not in by_key:
                raise NegkitError(f"--phases: {key!r} is not a part of --train ({', '.join(by_key)})")
            if key in seen:
                raise NegkitError(f"--phases: {key!r} is in two phases")
            seen.add(key)
        phases.append([by_key[key] for key in keys])
    missing = [key for key in by_key if key not in seen]
    if missing:
        raise NegkitError(f"--phases leaves out {', '.join(missing)}: name every part of --train once")
    return phases


def with_choices(examples: list[Example], name: str) -> list[Example]:
    """``examples`` tagged with their format ``name``; a source that gives no choices gets its distinct
    completions as choices when they are few (a closed answer set, e.g. TIND's True/False)."""
    distinct = sorted({example.completion for example in examples})
    closed = tuple(distinct) if len(distinct) <= MAX_CLOSED_ANSWERS else ()
    return [replace(example, format=example.format or name, choices=example.choices or closed) for example in examples]


def units_of(examples: Sequence[Example], rng: random.Random) -> list[list[Example]]:
    """Examples grouped into draw units: partners (same ``pair`` key) of different answers two by two, the rest
    alone; in a shuffled order."""
    by_pair: dict[str, list[Example]] = {}
    units: list[list[Example]] = []
    for example in examples:
        if example.pair:
            by_pair.setdefault(example.pair, []).append(example)
        else:
            units.append([example])
    for key in sorted(by_pair):
        members = rng.sample(by_pair[key], len(by_pair[key]))
        while members:
            first = members.pop()
            partner = next((other for other in members if other.completion != first.completion), None)
            if partner is None:
                units.append([first])
            else:
                members.remove(partner)
                units.append([first, partner])
    return rng.sample(units, len(units))


def _cell(example: Example, closed: bool, by_negation: bool) -> tuple[Any, ...]:
    """The quota cell of an example: its answer (closed answers only), and whether it is negated (``by_negation``)."""
    return ((example.completion,) if closed else ()) + ((example.negated,) if by_negation else ())


def _cell_name(cell: tuple[Any, ...], closed: bool, by_negation: bool) -> str:
    """A quota cell as an error message names it: ``'no'``, ``'no' (negated)`` or ``examples (affirmative)``."""
    answer = repr(cell[0].strip()) if closed else "examples"
    return f"{answer} ({'negated' if cell[-1] else 'affirmative'})" if by_negation else answer


def balanced_draw(
    units: Sequence[list[Example]], count: int, label: str, by_negation: bool = False
) -> list[list[Example]]:
    """The first units (in order) that fill an equal quota of ``count`` over the answers, or over answer x negated
    with ``by_negation``. Free answers (no choices) are drawn without answer quotas."""
    examples = [example for unit in units for example in unit]
    answers = sorted({example.completion for example in examples})
    closed = len(answers) <= MAX_CLOSED_ANSWERS
    polarities: list[tuple[Any, ...]] = [()]
    if by_negation:
        unknown = next((example for example in examples if example.negated is None), None)
        if unknown is not None:
            raise NegkitError(
                f"--balance-by negation: {label} does not say whether its examples are negated "
                f"(e.g. {unknown.origin or 'its first example'}); balance it by answer"
            )
        polarities = [(polarity,) for polarity in sorted({bool(example.negated) for example in examples})]
    # the cells in the order of _cell's keys: answers (when closed), each split by polarity (when by_negation)
    answer_keys: list[tuple[str, ...]] = [(each,) for each in answers] if closed else [()]
    cells = [answer + polarity for answer in answer_keys for polarity in polarities]
    quota = {cell: count // len(cells) + (index < count % len(cells)) for index, cell in enumerate(cells)}
    counted = closed or by_negation
    taken: list[list[Example]] = []
    total = 0
    for unit in units:
        if total >= count:
            break
        if len(unit) > count - total:
            continue
        if counted:
            need: dict[tuple[Any, ...], int] = {}
            for example in unit:
                cell = _cell(example, closed, by_negation)
                need[cell] = need.get(cell, 0) + 1
            if any(quota[cell] < number for cell, number in need.items()):
                continue
            for cell, number in need.items():
                quota[cell] -= number
        taken.append(unit)
        total += len(unit)
    if total < count:
        short = {cell: left for cell, left in quota.items() if left > 0} if counted else {}
        detail = ", ".join(f"{left} more {_cell_name(cell, closed, by_negation)}" for cell, left in short.items())
        raise NegkitError(
            f"--train {label}: only {total} of {count} examples can be drawn with equal answers"
            f"{' and polarities' if by_negation else ''}"
            f"{' (needs ' + detail + ')' if detail else ''}; ask for fewer"
        )
    return taken


def pack_batches(units: Sequence[list[Example]], batch_size: int) -> list[Example]:
    """The units in order, laid out so that no pair straddles two batches of ``batch_size``: a pair that does not
    fit in a batch's last slot waits while the next single fills the slot. With an even batch size a single is
    always left for that when the number of singles is even, so an odd one out is kept for the very end; with an
    odd batch size a pair is split when no single is left."""
    queue = list(units)
    singles = [index for index, unit in enumerate(queue) if len(unit) == 1]
    last = queue.pop(singles[-1]) if len(singles) % 2 else None
    out: list[Example] = []
    while queue:
        room = batch_size - len(out) % batch_size
        if len(queue[0]) <= room:
            out.extend(queue.pop(0))
            continue
        single = next((index for index, other in enumerate(queue) if len(other) == 1), None)
        out.extend(queue.pop(single if single is not None else 0))
    return out + (last or [])


def build_mix(model: Any, options: Any) -> tuple[TrainingData, TrainingData | None]:
    """The training examples of the mix ``options.train`` in phase order, and the development examples per format
    (``options.dev_per_format``, else None)."""
    parts = parse_mix(options.train)
    phases = parse_phases(options.phases, parts)
    pools: dict[str, list[Example]] = {}
    files: list[Any] = []
    described: dict[str, Any] = {}
    group_keys: list[Any] = []
    for source_name in dict.fromkeys(part.source for part in parts):
        source = training_source(source_name)
        data = source.build(model, options, "train", None) if source is not None else replay_examples()
        pools[source_name] = with_choices(data.examples, source_name) if source is not None else data.examples
        files += [path for path in data.files if path not in files]
        described[source_name] = {
            key: value for key, value in data.description.items() if key not in ("group_keys", "source")
        }
        described[source_name]["in_distribution"] = source.in_distribution if source is not None else None
        group_keys += data.description.get("group_keys", [])  # TIND's: eval --adapter refuses to test on them
    by_negation = options.balance_by == "negation"
    dev_examples: list[Example] = []
    dev_counts: dict[str, int] = {}
    if options.dev_per_format:
        for source_name, pool in pools.items():
            if source_name == REPLAY:  # no answers to guard
                continue
            rng = random.Random(f"{options.seed}:dev:{source_name}")
            label = f"{source_name} (development)"
            chosen = balanced_draw(units_of(pool, rng), options.dev_per_format, label, by_negation)
            held = {id(example) for unit in chosen for example in unit}
            dev_examples += [example for unit in chosen for example in unit]
            dev_counts[source_name] = sum(len(unit) for unit in chosen)
            pools[source_name] = [example for example in pool if id(example) not in held]
    ordered: list[Example] = []
    part_counts: dict[str, dict[str, Any]] = {}
    for number, phase in enumerate(phases):
        phase_units: list[list[Example]] = []
        for part in phase:
            pool = pools[part.source]
            if part.only is not None:
                pool = [example for example in pool if example.negated is (part.only == "negative")]
            rng = random.Random(f"{options.seed}:{part.key}")
            balance_negation = by_negation and part.source != REPLAY  # replay text has no answer and no polarity
            chosen = balanced_draw(units_of(pool, rng), part.count, part.key, balance_negation)
            phase_units += chosen
            drawn = [example for unit in chosen for example in unit]
            counts: dict[str, Any] = {"examples": len(drawn)}
            closed = len({example.completion for example in drawn}) <= MAX_CLOSED_ANSWERS
            if closed and all(example.choices for example in drawn):  # closed answers: how many of each (else none)
                counts = {}
                for example in drawn:
                    counts[example.completion] = counts.get(example.completion, 0) + 1
            if balance_negation:  # how many of the drawn examples are negated, per answer (or in all)
                negated: dict[str, int] = {}
                for example in drawn:
                    key = example.completion if closed else "examples"
                    negated[key] = negated.get(key, 0) + bool(example.negated)
                counts["negated"] = negated
            part_counts[part.key] = {"phase": number, "pairs": sum(len(unit) == 2 for unit in chosen), **counts}
        rng = random.Random(f"{options.seed}:phase:{number}")
        ordered += pack_batches(rng.sample(phase_units, len(phase_units)), options.batch_size)
    description = {
        "kind": "mix",
        "mix": options.train,
        "phases": [[part.key for part in phase] for phase in phases],
        **({"balance_by": "negation"} if by_negation else {}),
        "parts": part_counts,
        "sources": described,
        "examples": len(ordered),
        **({"group_keys": group_keys} if group_keys else {}),
    }
    train = TrainingData(ordered, files, description)
    if not dev_examples:
        return train, None
    return train, TrainingData(dev_examples, files, {"kind": "mix-development", "per_format": dev_counts})


def content_free_examples(model: Any, options: Any) -> list[Example]:
    """Each mix source's content-free prompt (where the source has one), for the answer-prior guard."""
    examples = []
    for source_name in dict.fromkeys(part.source for part in parse_mix(options.train)):
        source = training_source(source_name)
        if source is not None and source.content_free is not None:
            example = source.content_free(model, options)
            if example is not None:
                examples.extend(with_choices([example], source_name))
    return examples
