"""Standard-negation multiple choice, declared: a sentence and four candidates, ``choice1`` its standard (clausal)
negation and always the answer, ``choice2`` a local negation (only a subordinate part negated; absent for items whose
``choice2_type`` is ``non-applicable``), ``choice3`` a contradiction without negation and ``choice4`` a paraphrase.

Each candidate is scored as the continuation ``" " + candidate`` (target delimiter: one space) of a prompt that holds
the sentence (``{s}``), as the LM Evaluation Harness's multiple choice; the prediction is the arg-max (``acc``) or
the arg-max per character (``acc_norm``). Zero-shot, or k-shot over several seeds with lm-eval's default sampler:
one ``random.Random(seed)`` per run draws ``k`` examples of the few-shot split with ``rnd.sample(pool, k)`` for
each item in order; the context is the examples, each ``prompt + " " + gold``, joined and followed by ``"\\n\\n"``,
then the item's prompt. When the items asked come from the few-shot split itself, ``k + 1`` are drawn, the item is
removed and the first ``k`` kept (so an item is never its own example). BOS policy (``bos``): ``"tokenizer"`` (the
tokenizer's own special tokens), ``"none"`` or ``"always"``.

A benchmark subclasses :class:`NegationChoiceTask` with its prompts (:meth:`NegationChoiceTask.templates`), its
items (:meth:`NegationChoiceTask.load_split`), the names of its local-negation types and a title; the metrics,
intervals and tables are :mod:`negkit.kit.metrics.negation_choice`, the records below.
"""

from __future__ import annotations

import random
import statistics
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from negkit.errors import NegkitError
from negkit.kit.data.predictions import read_choice_predictions
from negkit.kit.metrics.choice import predict, predict_normalised
from negkit.kit.metrics.intervals import Estimand
from negkit.kit.metrics.negation_choice import CHOICE_NAMES, choice_estimands, choice_metrics
from negkit.kit.render.negation_choice import choice_tables
from negkit.kit.runs import need
from negkit.kit.tasks.base import TaskData, resolve_limit, wrap_prompt
from negkit.models.base import LoglikelihoodRequest, LoglikelihoodResult

TARGET_DELIMITER = " "
FEWSHOT_DELIMITER = "\n\n"
FEWSHOT_SEEDS: tuple[int, ...] = (42, 1234, 3000, 5000, 7000)
#: BOS policies and the ``add_bos`` value of their requests.
BOS_POLICIES: dict[str, bool | None] = {"tokenizer": None, "none": False, "always": True}
#: The ``choice2_type`` of an item without a local-negation candidate.
NON_APPLICABLE = "non-applicable"
GOLD = "choice1"


@dataclass(frozen=True)
class ChoiceItem:
    """One item. ``choices`` holds choice1..choice4 as in the file; the candidates offered to a model are
    :attr:`candidates` (choice2 is left out for ``non-applicable`` items); the gold candidate is index 0."""

    item_id: str
    index: int
    wikipedia_index: int | None
    sentence: str
    choices: tuple[str, str, str, str]
    choice2_type: str
    choice2_element: str

    @property
    def candidate_names(self) -> tuple[str, ...]:
        """Which of choice1..choice4 are offered, in order."""
        if self.choice2_type == NON_APPLICABLE:
            return ("choice1", "choice3", "choice4")
        return CHOICE_NAMES

    @property
    def candidates(self) -> tuple[str, ...]:
        """The texts offered to a model, gold first."""
        return tuple(self.choices[CHOICE_NAMES.index(name)] for name in self.candidate_names)

    @property
    def gold(self) -> int:
        """Index of the correct candidate (always 0: the standard negation)."""
        return 0


def sample_fewshot(
    pool: Sequence[ChoiceItem],
    k: int,
    seed: int,
    items: Sequence[ChoiceItem] | int,
    exclude_item: bool = False,
    split: str = "validation",
) -> list[list[ChoiceItem]]:
    """The examples for each item in order: one generator seeded once, ``k`` draws per item (lm-eval's way).

    ``items`` are the items asked (or just their number). With ``exclude_item`` (the items come from the pool's
    own split) each draw takes ``k + 1``, removes the item (by content, as lm-eval compares documents) and keeps
    the first ``k``, so an item never sees itself as an example.
    """
    count = items if isinstance(items, int) else len(items)
    needed = k + 1 if exclude_item else k
    if needed > len(pool):
        raise NegkitError(f"{k}-shot needs at least {needed} few-shot items; the {split} split has {len(pool)}")
    generator = random.Random(seed)
    pool = list(pool)
    if not exclude_item:
        return [generator.sample(pool, k) for _ in range(count)]
    if isinstance(items, int):
        raise ValueError("exclude_item needs the items themselves")
    draws = []
    for item in items:
        kept = [example for example in generator.sample(pool, k + 1) if not _same_item(example, item)][:k]
        if len(kept) < k:
            kept = generator.sample([example for example in pool if not _same_item(example, item)], k)
        draws.append(kept)
    return draws


def _same_item(first: ChoiceItem, second: ChoiceItem) -> bool:
    """Equal documents (lm-eval compares the rows): same sentence and the same candidates."""
    return first.sentence == second.sentence and first.candidates == second.candidates


def fewshot_block(examples: Sequence[ChoiceItem], render: Callable[[str], str]) -> str:
    """The few-shot block put before an item's prompt (empty for zero-shot); ``render`` fills the prompt."""
    if not examples:
        return ""
    shots = [render(example.sentence) + TARGET_DELIMITER + example.candidates[example.gold] for example in examples]
    return FEWSHOT_DELIMITER.join(shots) + FEWSHOT_DELIMITER


class NegationChoiceTask:
    """Standard-negation multiple choice with one prompt, zero-shot (``num_fewshot=0``) or k-shot over seeds. A
    benchmark sets ``name``, ``dataset``, ``title``, ``local_types`` (its local-negation types, for the confusion
    rates), ``fewshot_split`` and ``unit``, and gives :meth:`templates` and :meth:`load_split`."""

    name = ""
    dataset = ""
    title = "Standard-negation multiple choice"
    local_types: tuple[str, ...] = ()
    fewshot_split = "validation"
    unit = "item"
    default_prompt = "1"
    model_kind = "language_model"
    accepts = frozenset({"prompt", "num_fewshot", "chat", "system_instruction", "bos"})
    splits: tuple[str, ...] = ("validation", "test")

    def __init__(
        self,
        prompt: str | None = None,
        num_fewshot: int = 0,
        seeds: Sequence[int] = FEWSHOT_SEEDS,
        chat: bool = False,
        system_instruction: str | None = None,
        bos: str = "tokenizer",
    ) -> None:
        prompt = self.default_prompt if prompt is None else str(prompt)
        self.render(prompt, "")  # validates the id
        if num_fewshot < 0:
            raise NegkitError("num_fewshot must be >= 0")
        if bos not in BOS_POLICIES:
            raise NegkitError(f"unknown BOS policy {bos!r}; choose one of {', '.join(BOS_POLICIES)}")
        self.bos = bos
        self.prompt = prompt
        self.num_fewshot = num_fewshot
        self.seeds: tuple[int, ...] = tuple(seeds) if num_fewshot else ()
        #: With the chat template the prompt is the user message and choices follow the generation prompt
        #: directly (no target delimiter), as the LM Evaluation Harness does with --apply_chat_template.
        self.chat = bool(chat)
        self.system_instruction = system_instruction
        self.pool: list[ChoiceItem] = []
        #: True when the items asked come from the few-shot split (then an item is never its own example).
        self.exclude_item = False
        #: Per run, per item: the ids of the few-shot examples drawn (filled by :meth:`requests`).
        self.fewshot_ids: list[list[list[str]]] = []

    # -- what a benchmark gives -------------------------------------------------------------------------------
    def templates(self) -> Mapping[str, str]:
        """Prompt id -> template with ``{s}`` for the sentence."""
        raise NotImplementedError

    def load_split(self, data: str | Path | None, split: str) -> tuple[list[ChoiceItem], list[Path], str]:
        """The items of ``split``, the files read and where they came from."""
        raise NotImplementedError

    def description(self, prompt_id: str) -> str:
        """Text put once before the few-shot examples and the prompt (the Harness's ``description``; none here)."""
        return ""

    # -- the task -----------------------------------------------------------------------------------------------
    def render(self, prompt_id: str, sentence: str) -> str:
        """The prompt ``prompt_id`` with the sentence in place of ``{s}``."""
        templates = self.templates()
        if prompt_id not in templates:
            raise NegkitError(f"unknown {self.title} prompt {prompt_id!r}; known: {', '.join(templates)}")
        return templates[prompt_id].replace("{s}", sentence)

    @property
    def uses_seed(self) -> bool:
        """Few-shot draws depend on the seeds; zero-shot asks the same whatever the seed."""
        return bool(self.num_fewshot)

    @property
    def runs(self) -> list[str]:
        """Names of the runs each item takes part in: ``zero-shot`` or ``seed-N`` per few-shot seed."""
        return [f"seed-{seed}" for seed in self.seeds] if self.num_fewshot else ["zero-shot"]

    def config(self) -> dict[str, Any]:
        return {
            "task": self.name,
            "prompt_id": self.prompt,
            "prompt": self.templates()[self.prompt],
            **({"description": self.description(self.prompt)} if self.description(self.prompt) else {}),
            "num_fewshot": self.num_fewshot,
            "seeds": list(self.seeds),
            "target_delimiter": self.target_delimiter,
            "fewshot_delimiter": FEWSHOT_DELIMITER,
            "chat": self.chat,
            "system_instruction": self.system_instruction,
            "fewshot_split": self.fewshot_split if self.num_fewshot else None,
            "fewshot_excludes_item": self.exclude_item,
            "bos": self.bos,
        }

    @property
    def target_delimiter(self) -> str:
        return "" if self.chat else TARGET_DELIMITER

    def prompt_template(self, model: Any) -> str:
        """The context with ``{s}`` for the sentence (and ``{fewshot_examples}`` for the k-shot block)."""
        prefix = "{fewshot_examples}" if self.num_fewshot else ""
        return self._context(self.description(self.prompt) + prefix + self.templates()[self.prompt], model)

    def _context(self, text: str, model: Any) -> str:
        if self.chat and model is None:
            raise NegkitError("the chat template needs the model")
        return wrap_prompt(text, model, self.chat, self.system_instruction)

    def load(self, data: str | Path | None, split: str, limit: int | None, seed: int) -> TaskData:
        """Read ``split`` (and the few-shot split for k-shot); ``limit`` keeps the first items, as lm-eval's."""
        items, files, source = self.load_split(data, split)
        if self.num_fewshot:
            self.pool, pool_files, _ = self.load_split(data, self.fewshot_split)
            files = [*files, *pool_files]
        total = len(items)
        limit = resolve_limit(limit, total)
        if limit is not None:
            items = items[:limit]
        self.exclude_item = split == self.fewshot_split
        return TaskData(
            items,
            files,
            {"split": split, "limit": limit, "count": len(items), "items_in_split": total, "source": source},
        )

    def requests(self, items: Sequence[ChoiceItem], model: Any = None) -> list[tuple[LoglikelihoodRequest, ...]]:
        """Per item: every candidate as a continuation, for each run in :attr:`runs` order."""
        prefixes_per_run = self._prefixes(items)
        delimiter = self.target_delimiter
        per_item: list[tuple[LoglikelihoodRequest, ...]] = []
        for position, item in enumerate(items):
            prompt, description = self.render(self.prompt, item.sentence), self.description(self.prompt)
            contexts = [
                self._context(description + prefixes[position] + prompt, model) for prefixes in prefixes_per_run
            ]
            per_item.append(
                tuple(
                    LoglikelihoodRequest(context, delimiter + candidate, BOS_POLICIES[self.bos])
                    for context in contexts
                    for candidate in item.candidates
                )
            )
        return per_item

    def _prefixes(self, items: Sequence[ChoiceItem]) -> list[list[str]]:
        if not self.num_fewshot:
            self.fewshot_ids = []
            return [[""] * len(items)]
        if not self.pool:
            raise NegkitError(f"few-shot needs the {self.fewshot_split} split: call load() first")
        draws = [
            sample_fewshot(self.pool, self.num_fewshot, seed, items, self.exclude_item, self.fewshot_split)
            for seed in self.seeds
        ]
        self.fewshot_ids = [[[example.item_id for example in examples] for examples in run] for run in draws]
        return [
            [fewshot_block(examples, lambda sentence: self.render(self.prompt, sentence)) for examples in run]
            for run in draws
        ]

    def records(
        self, items: Sequence[ChoiceItem], responses: Sequence[Sequence[LoglikelihoodResult]]
    ) -> list[dict[str, Any]]:
        """Per item: the log-likelihoods of each run, the ``acc`` and ``acc_norm`` predictions (choice names)."""
        records = []
        for position, (item, answers) in enumerate(zip(items, responses)):
            size = len(item.candidates)
            if len(answers) != size * len(self.runs):
                raise NegkitError(f"item {item.item_id}: expected {size * len(self.runs)} answers, got {len(answers)}")
            runs = {}
            for run_index, run in enumerate(self.runs):
                scores = [answer.logprob for answer in answers[run_index * size : (run_index + 1) * size]]
                runs[run] = {
                    "loglikelihoods": scores,
                    "prediction": item.candidate_names[predict(scores)],
                    "prediction_norm": item.candidate_names[predict_normalised(scores, item.candidates)],
                }
                if len(self.fewshot_ids) > run_index:
                    runs[run]["fewshot_ids"] = self.fewshot_ids[run_index][position]
            records.append(item_record(item, runs))
        return records

    def metrics(self, items: Sequence[ChoiceItem], records: Sequence[dict[str, Any]]) -> dict[str, Any]:
        """acc, acc_norm and the error analysis of each run the records hold (a predictions file names its own)."""
        runs = record_runs(records) or self.runs
        return choice_metrics(records, runs, self.local_types) | {
            "prompt_id": self.prompt,
            "num_fewshot": self.num_fewshot,
        }

    def estimands(
        self, items: Sequence[ChoiceItem], records: Sequence[dict[str, Any]], headline_only: bool = False
    ) -> list[Estimand]:
        """acc, acc_norm (their mean over runs is the headline) and the error analysis, resampling items."""
        return choice_estimands(records, record_runs(records) or self.runs, self.local_types, self.unit, headline_only)

    def tables(self, metrics: dict[str, Any]) -> str:
        return choice_tables(metrics, self.title, self.local_types)

    def gold_choice(self, item: ChoiceItem) -> int:
        """The index of the gold candidate's request among an item's requests (training examples rendered by the
        task, :mod:`negkit.kit.training_data.task_source`): the standard negation, in the first run."""
        return item.gold

    def harness_scores(self, records: Sequence[dict[str, Any]]) -> dict[str, list[float]]:
        return harness_scores(records)

    def items_from_records(self, records: Sequence[dict[str, Any]], path: Path) -> list[ChoiceItem]:
        return items_from_records(records, path)

    def item_id_from(self, path: Path, line: int, record: Mapping[str, Any]) -> str | None:
        """The item a predictions line without ``item_id`` names (None: such a line is an error)."""
        return None

    def predictions(self, path: Path, items: Sequence[ChoiceItem]) -> list[dict[str, Any]]:
        """A predictions file's records in the eval's shape: lines ``{"item_id": ..., "prediction": 0}`` (a position
        among the candidates offered or a name ``choice1``..``choice4``; optional ``prediction_norm`` and ``run``),
        or ``negkit eval``'s samples file."""
        runs: dict[str, dict[str, Any]] = {}
        for prediction in read_choice_predictions(
            path, {item.item_id: item for item in items}, self.item_id_from, " (or 'index')"
        ):
            runs.setdefault(prediction.item_id, {})[prediction.run] = {
                "prediction": prediction.prediction,
                "prediction_norm": prediction.prediction_norm,
            }
        return [item_record(item, runs[item.item_id]) for item in items if item.item_id in runs]

    def scored_metrics(self, metrics: dict[str, Any], name: str, items: Sequence[ChoiceItem]) -> dict[str, Any]:
        return scored_metrics(metrics, name)


def item_record(item: ChoiceItem, runs: dict[str, Any]) -> dict[str, Any]:
    """An item's record with the answers of each run (``runs``: run name -> ``prediction``, ``prediction_norm``,
    ...)."""
    return {
        "item_id": item.item_id,
        "sentence": item.sentence,
        "choice2_type": item.choice2_type,
        "candidates": list(item.candidate_names),
        "choices": list(item.candidates),
        "gold": GOLD,
        "runs": runs,
    }


def record_runs(records: Sequence[Mapping[str, Any]]) -> list[str]:
    """The runs the records hold, in order of first appearance."""
    return list(dict.fromkeys(run for record in records for run in record.get("runs", {})))


def items_from_records(records: Sequence[Mapping[str, Any]], path: Path) -> list[ChoiceItem]:
    """The items as far as the estimands need them (id and local-negation type; the answers stay in the records)."""
    items = []
    for number, record in enumerate(records, start=1):
        need(record, "runs", path, number)
        items.append(
            ChoiceItem(
                str(record["item_id"]),
                -1,
                None,
                str(record.get("sentence", "")),
                ("", "", "", ""),
                str(record.get("choice2_type", "")),
                "",
            )
        )
    return items


def harness_scores(records: Sequence[Mapping[str, Any]]) -> dict[str, list[float]]:
    """Per item, ``acc`` (and ``acc_norm`` where every run has it): the item's mean over its runs."""
    acc, norm = [], []
    for record in records:
        runs = list(record["runs"].values())
        acc.append(statistics.fmean(float(run["prediction"] == record["gold"]) for run in runs))
        if all(run.get("prediction_norm") is not None for run in runs):
            norm.append(statistics.fmean(float(run["prediction_norm"] == record["gold"]) for run in runs))
    scores = {"acc": acc, **({"acc_norm": norm} if len(norm) == len(acc) else {})}
    return {name: values for name, values in scores.items() if values}


def scored_metrics(metrics: dict[str, Any], name: str) -> dict[str, Any]:
    """What ``negkit score`` reports: the metrics without the eval's prompt and shots (a predictions file says
    neither), with ``source``: the name and the runs."""
    kept = {key: value for key, value in metrics.items() if key not in ("prompt_id", "num_fewshot")}
    return kept | {"source": f"{name} ({', '.join(metrics.get('runs', {}))})"}
