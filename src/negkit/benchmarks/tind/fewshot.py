"""Few-shot examples for TIND: the authors' fixed list (the default) and a seeded draw (an option).

The authors' code (hitz-zentroa/This-is-not-a-Dataset, ``fewshot.py``) prompts with one fixed, hand-picked list
of 44 training sentences: four per pattern, patterns #01 to #11 in order, each pattern's four in the authors'
order (which differs between patterns: #01 starts input affirmative, input negative, distractor negative,
distractor affirmative; #02 starts with its input negative sentence). Each example is rendered
``"{sentence} {True|False}"`` and the examples are joined by newlines. Some of the 44 sentences come from
groups that are not in the public half of the raw release, so the list ships with negkit.

**The list is kept encrypted**, like the data it comes from: ``fewshot_authors.txt`` holds the JSON list
XOR-ed with a SHAKE-256 key stream derived from the authors' password and base64-encoded, so no TIND sentence is
readable in the repository or a wheel; :func:`authors_fewshot_examples` decodes it in memory.

:func:`draw_fewshot_examples` is negkit's seeded alternative: one training group per pattern drawn with the
seed, one sentence of each cell.
"""

from __future__ import annotations

import base64
import hashlib
import json
import random
from collections import defaultdict
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

from negkit.benchmarks.tind.types import PATTERN_NAMES, TruthItem
from negkit.errors import NegkitError

#: Where the few-shot examples come from: the authors' fixed list, or a draw from the training split.
FEWSHOT_SOURCES = ("authors", "seeded")
AUTHORS_FILE = Path(__file__).with_name("fewshot_authors.txt")
#: Key-stream seed: the authors' published password for their data, with a negkit prefix.
_KEY = b"negkit/tind-fewshot/hitz"
#: Cells of a drawn few-shot block, in the order of the authors' pattern #01: (is_distractor, is_negated).
DRAW_CELLS = ((False, False), (False, True), (True, True), (True, False))


def _decode(text: str) -> list[dict]:
    cipher = base64.b64decode("".join(text.split()))
    stream = hashlib.shake_256(_KEY).digest(len(cipher))
    return json.loads(bytes(a ^ b for a, b in zip(cipher, stream)).decode("utf-8"))


@lru_cache(maxsize=1)
def authors_fewshot_examples() -> tuple[TruthItem, ...]:
    """The authors' 44 few-shot examples in their order, as items (``group_id`` 0: the list names no group)."""
    records = _decode(AUTHORS_FILE.read_text(encoding="ascii"))
    items = []
    for index, record in enumerate(records):
        pattern = int(record["pattern"])
        items.append(
            TruthItem(
                item_id=f"authors-fewshot-{index:02d}-p{pattern:02d}-{record['template_id']}",
                group_id=0,
                pattern_id=pattern,
                pattern=PATTERN_NAMES[pattern],
                template_id=record["template_id"],
                negation_type=record["negation_type"],
                semantic_type=record["semantic_type"],
                syntactic_scope=record["syntactic_scope"],
                kind="Distractor" if record["is_distractor"] else "Input",
                is_distractor=bool(record["is_distractor"]),
                label=bool(record["label"]),
                sentence=record["sentence"],
            )
        )
    return tuple(items)


def fewshot_block(examples: Sequence[TruthItem]) -> str:
    """The examples as the authors render them: ``{sentence} {True|False}`` lines joined by newlines."""
    return "\n".join(f"{item.sentence.strip()} {item.label}" for item in examples)


def draw_fewshot_examples(train: Sequence[TruthItem], seed: int) -> list[TruthItem]:
    """Four examples per pattern from one training group drawn with ``seed``: one sentence of each cell
    (input affirmative, input negative, distractor negative, distractor affirmative)."""
    rng = random.Random(seed)
    by_group: dict[tuple[int, int], list[TruthItem]] = defaultdict(list)
    for item in train:
        by_group[item.group_key].append(item)
    examples: list[TruthItem] = []
    for pattern in sorted({key[0] for key in by_group}):
        keys = sorted(key for key in by_group if key[0] == pattern)
        rng.shuffle(keys)
        for key in keys:
            cells = {
                cell: [item for item in by_group[key] if (item.is_distractor, item.is_negated) == cell]
                for cell in DRAW_CELLS
            }
            if all(cells.values()):
                examples += [rng.choice(cells[cell]) for cell in DRAW_CELLS]
                break
    if not examples:
        raise NegkitError("no training group with all four cells for the few-shot examples")
    return examples
