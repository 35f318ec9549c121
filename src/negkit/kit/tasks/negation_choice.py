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

A benchmark declares a :class:`NegationChoice`: its reader, its prompts, the names of its local-negation types, its
few-shot split and seeds, a title; :class:`NegationChoiceTask` asks any such declaration. The metrics, intervals and
tables are :mod:`negkit.kit.metrics.negation_choice`, the items and records
:mod:`negkit.kit.tasks.negation_choice_items`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from negkit.errors import NegkitError
from negkit.kit.data.locate import locate_dataset
from negkit.kit.data.predictions import read_choice_predictions
from negkit.kit.metrics.choice import predict, predict_normalised
from negkit.kit.metrics.intervals import Estimand
from negkit.kit.metrics.negation_choice import choice_estimands, choice_metrics
from negkit.kit.render.negation_choice import choice_tables
from negkit.kit.tasks.base import TaskData, resolve_limit, wrap_prompt
from negkit.kit.tasks.declared import DeclaredTask, own_field
from negkit.kit.tasks.negation_choice_items import (
    FEWSHOT_DELIMITER,
    FEWSHOT_SEEDS,
    GOLD,
    NON_APPLICABLE,
    TARGET_DELIMITER,
    ChoiceItem,
    fewshot_block,
    harness_scores,
    item_record,
    items_from_records,
    record_runs,
    sample_fewshot,
    scored_metrics,
)
from negkit.models.base import LoglikelihoodRequest, LoglikelihoodResult

__all__ = [
    "BOS_POLICIES",
    "FEWSHOT_DELIMITER",
    "FEWSHOT_SEEDS",
    "GOLD",
    "NON_APPLICABLE",
    "TARGET_DELIMITER",
    "ChoiceItem",
    "NegationChoice",
    "NegationChoiceTask",
    "fewshot_block",
    "harness_scores",
    "item_record",
    "items_from_records",
    "record_runs",
    "sample_fewshot",
    "scored_metrics",
]

#: BOS policies and the ``add_bos`` value of their requests.
BOS_POLICIES: dict[str, bool | None] = {"tokenizer": None, "none": False, "always": True}
#: ``read(folder, split) -> items``; the folder is None when the declaration's ``locate`` found none (the reader
#: then reads from elsewhere, e.g. a hub).
NegationChoiceReader = Callable[[Path | None, str], list[ChoiceItem]]
#: ``item_id_from(path, line, record)``: the item a predictions line without ``item_id`` names (None: none).
PositionalId = Callable[[Path, int, Mapping[str, Any]], str | None]


@dataclass(frozen=True)
class NegationChoice(DeclaredTask[ChoiceItem]):
    """How a standard-negation multiple-choice benchmark is asked (see the module documentation).

    ``read(folder, split)`` gives the items of a split (``files(folder, split)`` the files it read); ``prompts``
    maps a prompt id to its template (``{s}``: the sentence), ``default_prompt`` is the one asked without
    ``--prompt`` and ``descriptions`` the text put once before the few-shot examples and the prompt, per prompt id
    (the Harness's ``description``); ``local_types`` are the local-negation types given a confusion rate;
    ``fewshot_split`` and ``fewshot_seeds`` where and with which seeds k-shot examples are drawn; ``bos`` the
    default BOS policy. ``locate(data, split)`` finds the data folder (default: the kit's lookup of ``dataset``;
    None lets the reader read from ``remote``), ``scored_items(data)`` the items a predictions file may name
    (default: the split asked) and ``item_id_from`` the item a predictions line names without ``item_id``."""

    read: NegationChoiceReader
    prompts: Mapping[str, str] = field(default_factory=dict, hash=False, kw_only=True)
    default_prompt: str = own_field("1")
    descriptions: Mapping[str, str] = field(default_factory=dict, hash=False, kw_only=True)
    local_types: tuple[str, ...] = own_field(())
    #: The benchmark's name in messages (``unknown Thunder-NUBench prompt``; default: the title).
    benchmark: str = own_field("")
    splits: tuple[str, ...] = own_field(("validation", "test"))
    fewshot_split: str = own_field("validation")
    fewshot_seeds: tuple[int, ...] = own_field(FEWSHOT_SEEDS)
    bos: str = own_field("tokenizer")
    locate: Callable[[str | Path | None, str], Path | None] | None = own_field(None)
    #: Where the items came from when ``locate`` found no folder (the results' ``source``).
    remote: str = own_field("hub")
    scored_items: Callable[[str | Path | None], list[ChoiceItem]] | None = own_field(None)
    item_id_from: PositionalId | None = own_field(None)

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.default_prompt not in self.prompts:
            raise ValueError(f"{self.name}: the default prompt {self.default_prompt!r} is not one of its prompts")

    def task(
        self,
        prompt: str | None = None,
        num_fewshot: int = 0,
        seeds: Sequence[int] | None = None,
        chat: bool = False,
        system_instruction: str | None = None,
        bos: str | None = None,
    ) -> NegationChoiceTask:
        """The task asked with ``prompt`` (default: ``default_prompt``), ``num_fewshot`` examples over ``seeds``
        (default: ``fewshot_seeds``), the chat template when ``chat`` and the BOS policy ``bos`` (the
        ``TaskEntry`` factory)."""
        return NegationChoiceTask(self, prompt, num_fewshot, seeds, chat, system_instruction, bos)


class NegationChoiceTask:
    """A :class:`NegationChoice` benchmark asked with one prompt, zero-shot (``num_fewshot=0``) or k-shot over
    seeds."""

    model_kind = "language_model"
    accepts = frozenset({"prompt", "num_fewshot", "chat", "system_instruction", "bos"})

    def __init__(
        self,
        spec: NegationChoice,
        prompt: str | None = None,
        num_fewshot: int = 0,
        seeds: Sequence[int] | None = None,
        chat: bool = False,
        system_instruction: str | None = None,
        bos: str | None = None,
    ) -> None:
        self.spec = spec
        self.name, self.dataset, self.splits = spec.name, spec.dataset or spec.name, spec.splits
        self.title, self.unit, self.fewshot_split = spec.title or spec.name, spec.unit, spec.fewshot_split
        prompt = spec.default_prompt if prompt is None else str(prompt)
        self.render(prompt, "")  # validates the id
        if num_fewshot < 0:
            raise NegkitError("num_fewshot must be >= 0")
        bos = spec.bos if bos is None else bos
        if bos not in BOS_POLICIES:
            raise NegkitError(f"unknown BOS policy {bos!r}; choose one of {', '.join(BOS_POLICIES)}")
        self.bos = bos
        self.prompt = prompt
        self.num_fewshot = num_fewshot
        self.seeds: tuple[int, ...] = tuple(spec.fewshot_seeds if seeds is None else seeds) if num_fewshot else ()
        #: With the chat template the prompt is the user message and choices follow the generation prompt
        #: directly (no target delimiter), as the LM Evaluation Harness does with --apply_chat_template.
        self.chat = bool(chat)
        self.system_instruction = system_instruction
        self.pool: list[ChoiceItem] = []
        #: True when the items asked come from the few-shot split (then an item is never its own example).
        self.exclude_item = False
        #: Per run, per item: the ids of the few-shot examples drawn (filled by :meth:`requests`).
        self.fewshot_ids: list[list[list[str]]] = []

    @property
    def local_types(self) -> tuple[str, ...]:
        return self.spec.local_types

    def description(self, prompt_id: str) -> str:
        """Text put once before the few-shot examples and the prompt (the Harness's ``description``)."""
        return self.spec.descriptions.get(prompt_id, "")

    def load_split(self, data: str | Path | None, split: str) -> tuple[list[ChoiceItem], list[Path], str]:
        """The items of ``split``, the files read and where they came from."""
        spec = self.spec
        folder = spec.locate(data, split) if spec.locate is not None else locate_dataset(self.dataset, data)
        items = spec.read(folder, split)
        if folder is None:
            return items, [], spec.remote
        return items, spec.data_files(folder, split), str(folder)

    def render(self, prompt_id: str, sentence: str) -> str:
        """The prompt ``prompt_id`` with the sentence in place of ``{s}``."""
        templates = self.spec.prompts
        if prompt_id not in templates:
            owner = self.spec.benchmark or self.title
            raise NegkitError(f"unknown {owner} prompt {prompt_id!r}; known: {', '.join(templates)}")
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
            "prompt": self.spec.prompts[self.prompt],
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
        return self._context(self.description(self.prompt) + prefix + self.spec.prompts[self.prompt], model)

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

    def predictions(self, path: Path, items: Sequence[ChoiceItem]) -> list[dict[str, Any]]:
        """A predictions file's records in the eval's shape: lines ``{"item_id": ..., "prediction": 0}`` (a position
        among the candidates offered or a name ``choice1``..``choice4``; optional ``prediction_norm`` and ``run``),
        or ``negkit eval``'s samples file."""
        runs: dict[str, dict[str, Any]] = {}
        for prediction in read_choice_predictions(
            path, {item.item_id: item for item in items}, self.spec.item_id_from or _no_item_id, " (or 'index')"
        ):
            runs.setdefault(prediction.item_id, {})[prediction.run] = {
                "prediction": prediction.prediction,
                "prediction_norm": prediction.prediction_norm,
            }
        return [item_record(item, runs[item.item_id]) for item in items if item.item_id in runs]

    def scored_items(self, data: str | Path | None) -> list[ChoiceItem] | None:
        """The items a predictions file may name (``negkit score``; None: the split asked)."""
        return None if self.spec.scored_items is None else self.spec.scored_items(data)

    def scored_metrics(self, metrics: dict[str, Any], name: str, items: Sequence[ChoiceItem]) -> dict[str, Any]:
        return scored_metrics(metrics, name)


def _no_item_id(path: Path, line: int, record: Mapping[str, Any]) -> str | None:
    """A predictions line without ``item_id`` names no item (it is an error)."""
    return None
