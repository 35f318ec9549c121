"""The TIND task: is each sentence True or False? (benchmarks spec, section 1, "Protocol").

Default ("first-token", the authors' protocol): the prompt is rendered with the model's chat template
when it has one; the answer is the next-token distribution after the prompt, and
``p = P(True) / (P(True) + P(False))`` over the FIRST sub-tokens of ``True`` and ``False`` encoded
without special tokens and without a leading space; the prediction is ``p > 0.5``. The backend adds
the tokenizer's special tokens and drops a final EOS (see :mod:`negkit.models.base`); encoder-decoder
models answer with one decoder step from the decoder start token.

Variants, each registered under its own name:

- ``tind-fewshot``: the authors' fixed, hand-picked list of 44 training examples (4 per pattern, in their
  order; :mod:`negkit.benchmarks.tind.fewshot`) with the authors' exact prompt strings; ``fewshot_examples="seeded"``
  draws 4 per pattern from one training group per pattern instead (with the seed);
- ``tind-generate``: greedy decoding of a few tokens; True iff the text contains "true" (any case);
- ``tind-continuation``: NOT the authors' protocol, the LM-Evaluation-Harness style: the
  log-likelihood of the continuation ``" True"`` vs ``" False"`` (no space after a chat template's
  generation prompt), compared the same way.
"""

from __future__ import annotations

import math
import random
from collections import defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from negkit.benchmarks.tind.data import item_record, read_tind
from negkit.benchmarks.tind.fewshot import (
    FEWSHOT_SOURCES,
    authors_fewshot_examples,
    draw_fewshot_examples,
    fewshot_block,
)
from negkit.benchmarks.tind.hf import SPLIT_ALIASES, SPLITS, iter_records, parse_bool, read_tind_predictions
from negkit.benchmarks.tind.intervals import tind_estimands
from negkit.benchmarks.tind.metrics import record_p_true, tind_metrics
from negkit.benchmarks.tind.tables import tind_report
from negkit.benchmarks.tind.types import PATTERN_NAMES, TruthItem
from negkit.errors import InputFormatError, NegkitError
from negkit.kit.data.locate import locate_dataset
from negkit.kit.metrics.intervals import Estimand
from negkit.kit.runs import need
from negkit.kit.tasks.base import TaskData, resolve_limit, wrap_prompt
from negkit.models.base import AnswerSpace, GenerateRequest, LoglikelihoodRequest, NextTokenRequest, Request

QUESTION = "Is the following statement True or False?"
CHAT_QUESTION = "Is the following statement True or False? Answer only True or False."
CANDIDATES = ("True", "False")
STYLES = ("first-token", "continuation", "generate")
#: Tokens decoded in generate mode.
GENERATE_TOKENS = 5
#: ``--split all``: every group of the data set (the paper's Table 4 scores the whole set; the authors'
#: ``do_predict_full_dataset`` concatenates train, validation and test).
ALL_SPLITS = "all"


class TruthTask:
    """TIND probing; ``style`` is one of :data:`STYLES`; ``fewshot`` adds 44 training examples, the authors'
    fixed list (``fewshot_examples="authors"``) or a seeded draw (``"seeded"``); ``chat`` forces the chat
    template on or off (``None``: use it when the model has one)."""

    dataset = "tind"
    model_kind = "language_model"
    #: The splits ``load`` takes (checked before any work): the release's three and ``all``, the whole set.
    splits: tuple[str, ...] = (*SPLITS, ALL_SPLITS)
    #: Record fields that hold decrypted TIND text (hashed in outputs inside a git working tree, see negkit.io.privacy).
    private_fields: tuple[str, ...] = ("sentence", "prompt")

    @staticmethod
    def private_fields_for(options: Mapping[str, Any]) -> tuple[str, ...]:
        """The private fields of the task built with ``options``: with ``style="generate"`` the model's text as
        well (it may restate the statement)."""
        if options.get("style") == "generate":
            return (*TruthTask.private_fields, "output")
        return TruthTask.private_fields

    @staticmethod
    def normalize_split(split: str) -> str:
        """``dev`` and ``val`` mean ``validation``."""
        return SPLIT_ALIASES.get(split, split)

    accepts = frozenset({"chat", "system_instruction"})
    uses_seed = True

    def __init__(
        self,
        style: str = "first-token",
        fewshot: bool = False,
        chat: bool | None = None,
        name: str = "tind",
        system_instruction: str | None = None,
        fewshot_examples: str = "authors",
    ) -> None:
        if style not in STYLES:
            raise NegkitError(f"unknown TIND prompt style {style!r}; choose one of {', '.join(STYLES)}")
        if fewshot_examples not in FEWSHOT_SOURCES:
            raise NegkitError(
                f"unknown TIND few-shot example source {fewshot_examples!r}; choose one of {', '.join(FEWSHOT_SOURCES)}"
            )
        self.name = name
        self.style = style
        self.private_fields = TruthTask.private_fields_for({"style": style})
        self.fewshot = fewshot
        self.fewshot_source = fewshot_examples
        if fewshot:  # the few-shot variant also takes --fewshot-examples
            self.accepts = TruthTask.accepts | {"fewshot_examples"}
        self.chat = chat
        self.system_instruction = system_instruction
        self.examples: list[TruthItem] = []
        #: What a ``--limit`` sample is a sample of (None: the whole split was evaluated).
        self.sample: dict[str, Any] | None = None

    def config(self) -> dict[str, Any]:
        return {
            "task": self.name,
            "style": self.style,
            "fewshot": self.fewshot,
            "fewshot_source": self.fewshot_source if self.fewshot else None,
            "chat": "auto" if self.chat is None else self.chat,
            "system_instruction": self.system_instruction,
            "prompt_id": self.prompt_id(),
            "fewshot_examples": [example.item_id for example in self.examples],
        }

    def prompt_id(self) -> str:
        """A short name of the prompt family (the chat/plain choice is made per model and recorded apart)."""
        shots = ("fewshot-44" if self.fewshot_source == "authors" else "fewshot-seeded") if self.fewshot else "zeroshot"
        return f"tind/{shots}/{self.style}"

    # -- data ----------------------------------------------------------------------------------------
    def load(self, data: str | Path | None, split: str, limit: int | None, seed: int) -> TaskData:
        source = tind_source(data)
        items = read_tind(source, None if split == ALL_SPLITS else split, seed)
        if not items:
            raise InputFormatError(source, None, f"no TIND items in split {split!r}")
        total, total_groups = len(items), len({item.group_key for item in items})
        limit = resolve_limit(limit, total)
        self.sample = None
        if limit is not None and limit < total:
            items = sample_groups(items, limit, seed)
            self.sample = describe_sample(items, split, limit, seed, total, total_groups)
        if self.fewshot:
            if self.fewshot_source == "authors":
                self.examples = list(authors_fewshot_examples())
            else:
                self.examples = draw_fewshot_examples(read_tind(source, "train", seed), seed)
        files = data_files(source)
        selection: dict[str, Any] = {
            "split": split,
            "limit": limit,
            "seed": seed,
            "count": len(items),
            "items_in_split": total,
            "groups": len({item.group_key for item in items}),
            "groups_in_split": total_groups,
        }
        if self.sample is not None:
            selection["sample"] = self.sample
        return TaskData(items=items, files=files, selection=selection)

    # -- prompts -------------------------------------------------------------------------------------
    def uses_chat(self, model: Any) -> bool:
        if self.chat is None:
            return bool(model.has_chat_template)
        if self.chat and not model.has_chat_template:
            raise NegkitError("the chat prompt was asked for but the model has no chat template")
        return self.chat

    def prompt(self, sentence: str, model: Any) -> str:
        """The exact prompt string the model sees for ``sentence``."""
        examples = fewshot_block(self.examples)
        return self._render(sentence.strip(), examples, model)

    def prompt_template(self, model: Any) -> str:
        """The prompt with ``{sentence}`` (and ``{examples}``: the few-shot lines) in place of the data."""
        return self._render("{sentence}", "{examples}", model)

    def _render(self, sentence: str, examples: str, model: Any) -> str:
        if self.uses_chat(model):
            if self.fewshot:
                message = f"{CHAT_QUESTION}\nHere are some examples:\n{examples}\n\n{sentence}"
            else:
                message = f"{CHAT_QUESTION} {sentence}"
            return wrap_prompt(message, model, True, self.system_instruction)
        if self.fewshot:
            text = f"{QUESTION}{examples}\n\n{sentence}"
            text = text if model.is_encoder_decoder else f"{text} "
        else:
            text = f"{QUESTION} {sentence}"
        return wrap_prompt(text, model, False, self.system_instruction)

    def requests(self, items: Sequence[TruthItem], model: Any) -> list[tuple[Request, ...]]:
        delimiter = "" if self.uses_chat(model) else " "
        requests: list[tuple[Request, ...]] = []
        for item in items:
            prompt = self.prompt(item.sentence, model)
            if self.style == "first-token":
                requests.append((NextTokenRequest(prompt, CANDIDATES),))
            elif self.style == "generate":
                requests.append((GenerateRequest(prompt, GENERATE_TOKENS),))
            else:
                context = prompt.rstrip(" ") if delimiter else prompt
                requests.append(tuple(LoglikelihoodRequest(context, f"{delimiter}{c}") for c in CANDIDATES))
        return requests

    # -- answers -------------------------------------------------------------------------------------
    def records(self, items: Sequence[TruthItem], responses: Sequence[Sequence[Any]]) -> list[dict[str, Any]]:
        records = []
        for item, answer in zip(items, responses):
            record: dict[str, Any] = {"item_id": item.item_id, **item_record(item, extended=True)}
            if self.style == "generate":
                record["output"] = answer[0]
                record["prediction"] = "true" in str(answer[0]).lower()
            else:
                if self.style == "first-token":
                    logprob_true, logprob_false = answer[0]["True"], answer[0]["False"]
                else:
                    logprob_true, logprob_false = answer[0].logprob, answer[1].logprob
                p_true = true_probability(logprob_true, logprob_false)
                record.update(logprob_true=logprob_true, logprob_false=logprob_false, p_true=p_true)
                record["prediction"] = p_true > 0.5
            records.append(record)
        return records

    def metrics(self, items: Sequence[TruthItem], records: Sequence[dict[str, Any]]) -> dict[str, Any]:
        metrics = tind_metrics(list(items), predicted(records), record_p_true(records))
        if self.sample is not None:
            metrics["sample"] = self.sample
        return metrics

    def answer_space(self, items: Sequence[TruthItem]) -> AnswerSpace:
        """``true`` -> ``True``, ``false`` -> ``False`` and the gold labels, for the baseline pseudo-models."""
        return AnswerSpace(
            {"true": CANDIDATES[0], "false": CANDIDATES[1]}, tuple("true" if item.label else "false" for item in items)
        )

    def estimands(
        self, items: Sequence[TruthItem], records: Sequence[Mapping[str, Any]], headline_only: bool = False
    ) -> list[Estimand]:
        """What the 95% intervals resample: whole groups (:mod:`negkit.benchmarks.tind.intervals`)."""
        return tind_estimands(list(items), predicted(records), record_p_true(records))

    def tables(self, metrics: dict[str, Any]) -> str:
        """The authors' tables; a run scored from a predictions file is named by its ``source``."""
        return tind_report(
            metrics, name=str(metrics.get("source", self.name)), title=f"TIND results ({self.prompt_id()})"
        )

    def harness_scores(self, records: Sequence[Mapping[str, Any]]) -> dict[str, list[float]]:
        return {
            "acc": [
                float(prediction == parse_bool(record["label"]))
                for prediction, record in zip(predicted(records), records)
            ]
        }

    #: A TIND predictions file holds its items (the authors' layout: the HF fields), so ``negkit score`` reads no data.
    predictions_hold_items = True

    def predictions(self, path: Path, items: Sequence[TruthItem] | None = None) -> list[dict[str, Any]]:
        """The records of a predictions file in the authors' layout (the HF fields and a boolean ``prediction``
        per line; ``negkit eval``'s samples file, with its ``p_true``, is read as well)."""
        read, predictions = read_tind_predictions(path)
        p_true = [record.get("p_true") for _, record in iter_records(path)]
        records = []
        for item, prediction, value in zip(read, predictions, p_true):
            record = {"item_id": item.item_id, **item_record(item, extended=True), "prediction": prediction}
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                record["p_true"] = float(value)
            records.append(record)
        return records

    def items_from_records(self, records: Sequence[Mapping[str, Any]], path: Path) -> list[TruthItem]:
        """TIND items (without sentences) from records with the HF fields ``pattern_id``, ``test_id``,
        ``negation_type``, ``semantic_type``, ``syntactic_scope``, ``isDistractor`` and ``label``."""
        items = []
        for number, record in enumerate(records, start=1):
            pattern_id = need(record, "pattern_id", path, number, int)
            items.append(
                TruthItem(
                    item_id=str(record["item_id"]),
                    group_id=need(record, "test_id", path, number, int),
                    pattern_id=pattern_id,
                    pattern=str(record.get("pattern", PATTERN_NAMES.get(pattern_id, ""))),
                    template_id=str(record.get("template_id", "")),
                    negation_type=str(need(record, "negation_type", path, number)),
                    semantic_type=str(need(record, "semantic_type", path, number)),
                    syntactic_scope=str(need(record, "syntactic_scope", path, number)),
                    kind=str(record.get("kind", "")),
                    is_distractor=need(record, "isDistractor", path, number, bool, parse_bool),
                    label=need(record, "label", path, number, bool, parse_bool),
                    sentence="",
                )
            )
            need(record, "prediction", path, number, bool, parse_bool)
        return items


def predicted(records: Sequence[Mapping[str, Any]]) -> list[bool]:
    """Each record's boolean prediction (``true`` / ``false`` written as text read as the booleans they name)."""
    return [bool(parse_bool(record["prediction"])) for record in records]


def true_probability(logprob_true: float, logprob_false: float) -> float:
    """``P(True) / (P(True) + P(False))`` from two log-probabilities, computed stably."""
    top = max(logprob_true, logprob_false)
    if top == -math.inf:
        return 0.5
    true, false = math.exp(logprob_true - top), math.exp(logprob_false - top)
    return true / (true + false)


def tind_source(data: str | Path | None) -> Path | str:
    """What to read for ``--data``: a file or hub name as given; a data root's ``tind`` folder or a folder
    itself; within a folder, its pattern files, else its zip (the authors' release), else its HF files.
    Without ``data`` the ``tind`` folder is found by :func:`negkit.kit.data.locate.locate_dataset`."""
    if data is None:
        folder = locate_dataset("tind")
    else:
        path = Path(data)
        if not path.exists():
            return str(data)  # a hub name
        if path.is_file():
            return path
        folder = path / "tind" if (path / "tind").is_dir() else path
    if any(folder.rglob("#*.Pattern.txt")):
        return folder
    zips = sorted(folder.glob("*.zip"))
    return zips[0] if zips else folder


def data_files(source: Path | str) -> list[Path]:
    """The files a TIND source consists of (for their hashes in result files); none for a hub name."""
    path = Path(source)
    if path.is_file():
        return [path]
    if path.is_dir():
        return sorted(
            file for file in path.rglob("*") if file.suffix in (".txt", ".jsonl", ".json", ".parquet", ".zip")
        )
    return []


def sample_groups(items: Sequence[TruthItem], limit: int, seed: int) -> list[TruthItem]:
    """A deterministic sample of whole groups holding about ``limit`` sentences that covers every pattern.

    First one group of every pattern present is taken (so all 11 patterns are always represented, even when
    that alone exceeds ``limit``); then groups are added one at a time, each time to the pattern with the
    smallest share of its groups chosen so far (ties: the pattern with more groups, then the lower pattern
    number), until the sample holds at least ``limit`` sentences. Which group of a pattern comes next is
    drawn with ``seed``. Every pattern's share of groups thus stays as equal as whole groups allow, and whole
    groups keep the group-level coherence measures meaningful. Items keep their input order.
    """
    if limit < 1:
        raise NegkitError(f"--limit must be at least 1, got {limit}")
    if limit >= len(items):
        return list(items)
    sizes: dict[tuple[int, int], int] = defaultdict(int)
    for item in items:
        sizes[item.group_key] += 1
    queues: dict[int, list[tuple[int, int]]] = defaultdict(list)
    for key in sizes:
        queues[key[0]].append(key)
    rng = random.Random(seed)
    for pattern in sorted(queues):
        rng.shuffle(queues[pattern])
    totals = {pattern: len(queue) for pattern, queue in queues.items()}
    chosen = {queues[pattern][0] for pattern in sorted(queues)}
    taken = dict.fromkeys(queues, 1)
    count = sum(sizes[key] for key in chosen)
    while count < limit:
        open_patterns = [pattern for pattern in queues if taken[pattern] < totals[pattern]]
        pattern = min(open_patterns, key=lambda p: (taken[p] / totals[p], -totals[p], p))
        key = queues[pattern][taken[pattern]]
        taken[pattern] += 1
        chosen.add(key)
        count += sizes[key]
    return [item for item in items if item.group_key in chosen]


def describe_sample(
    sample: Sequence[TruthItem], split: str, limit: int, seed: int, total: int, total_groups: int
) -> dict[str, Any]:
    """What a ``--limit`` sample is: its size, what it was drawn from, and its groups per pattern."""
    per_pattern: dict[int, set[tuple[int, int]]] = defaultdict(set)
    for item in sample:
        per_pattern[item.pattern_id].add(item.group_key)
    return {
        "limit": limit,
        "seed": seed,
        "split": split,
        "sentences": len(sample),
        "groups": sum(len(groups) for groups in per_pattern.values()),
        "of_sentences": total,
        "of_groups": total_groups,
        "groups_per_pattern": {f"{pattern:02d}": len(per_pattern[pattern]) for pattern in sorted(per_pattern)},
    }
