"""Thunder-NUBench multiple choice by log-likelihood, as the authors ran it with the LM Evaluation Harness.

Each candidate is scored as the continuation ``" " + candidate`` (target delimiter: one space) of the prompt; the
prediction is the arg-max (``acc``) or the arg-max per character (``acc_norm``). ``non-applicable`` items offer
three candidates (choice1, choice3, choice4); the others four; the gold candidate is always choice1.

Prompts are data (``nubench_prompts.json``, printed exactly as in the paper's Tables 10 and 13, including the
prompts that glue the sentence to the next word such as ``{s}Answer:``).

BOS policy (``bos``, recorded in the results): whether a BOS token starts the context differs between Harness
versions. ``"tokenizer"`` (default) tokenizes the context with the tokenizer's own special tokens, as Harness
0.4.13 and every other negkit task do (a BOS for Llama/Mistral-style tokenizers, none for Qwen/GPT-2-style ones);
``"none"`` never prepends one, as the Harness's causal-LM default did before it switched to the tokenizer's
(the version the Thunder-NUBench paper used); ``"always"`` always prepends one.

Few-shot follows lm-eval's default sampler: one ``random.Random(seed)`` per run draws ``k`` validation items with
``rnd.sample(pool, k)`` for each test item in order; the context is the examples, each ``prompt + " " + gold
choice``, joined and followed by the few-shot delimiter ``"\\n\\n"``, then the item's prompt. When the items
asked come from the few-shot split itself (``--split validation``), the item is never its own example: as the
Harness does, ``k + 1`` are drawn, the item is removed and the first ``k`` kept (if duplicates of the item leave
fewer than ``k``, ``k`` are drawn again from the pool without it). Few-shot runs are
repeated for every seed (default 42, 1234, 3000, 5000, 7000) and reported as mean and sample SD.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from negkit.benchmarks.nubench.data import ChoiceItem, find_split_file, load_choice_items, locate_nubench_root
from negkit.benchmarks.nubench import records as one_path
from negkit.errors import DataNotFoundError, NegkitError
from negkit.kit.metrics.intervals import Estimand
from negkit.benchmarks.nubench.intervals import nubench_estimands
from negkit.kit.metrics.choice import mean_and_sd, predict, predict_normalised
from negkit.benchmarks.nubench.metrics import CHOICE_NAMES, error_analysis
from negkit.models.base import LoglikelihoodRequest, LoglikelihoodResult
from negkit.kit.tasks.base import TaskData, resolve_limit, wrap_prompt

TARGET_DELIMITER = " "
FEWSHOT_DELIMITER = "\n\n"
FEWSHOT_SEEDS: tuple[int, ...] = (42, 1234, 3000, 5000, 7000)
FEWSHOT_SPLIT = "validation"
#: BOS policies and the ``add_bos`` value of their requests (see the module documentation).
BOS_POLICIES: dict[str, bool | None] = {"tokenizer": None, "none": False, "always": True}


@lru_cache(maxsize=1)
def prompt_file() -> dict[str, Any]:
    """The prompt file: ``instruction_block``, ``main`` (the main prompt id) and ``prompts`` (id -> template)."""
    text = resources.files("negkit.benchmarks.nubench").joinpath("prompts.json").read_text(encoding="utf-8")
    return json.loads(text)


def prompt_ids() -> list[str]:
    """The prompt ids: ``1``..``12`` and the wording variants ``7-1``..``7-5``."""
    return list(prompt_file()["prompts"])


def instruction_block() -> str:
    """Prompt 7's instruction sentences (the ``{I}`` of the wording variants; the Alpaca instruction)."""
    return prompt_file()["instruction_block"]


def render_prompt(prompt_id: str, sentence: str) -> str:
    """The prompt ``prompt_id`` with the sentence in place of ``{s}``."""
    prompts = prompt_file()["prompts"]
    if prompt_id not in prompts:
        raise NegkitError(f"unknown Thunder-NUBench prompt {prompt_id!r}; known: {', '.join(prompts)}")
    return prompts[prompt_id].replace("{s}", sentence)


def fewshot_prefix(examples: Sequence[ChoiceItem], prompt_id: str) -> str:
    """The few-shot block put before an item's prompt (empty for zero-shot)."""
    if not examples:
        return ""
    shots = [render_prompt(prompt_id, ex.sentence) + TARGET_DELIMITER + ex.candidates[ex.gold] for ex in examples]
    return FEWSHOT_DELIMITER.join(shots) + FEWSHOT_DELIMITER


def sample_fewshot(pool: Sequence[ChoiceItem], k: int, seed: int, items: Sequence[ChoiceItem] | int,
                   exclude_item: bool = False) -> list[list[ChoiceItem]]:
    """The examples for each item in order: one generator seeded once, ``k`` draws per item (lm-eval's way).

    ``items`` are the items asked (or just their number). With ``exclude_item`` (the items come from the pool's
    own split) each draw takes ``k + 1``, removes the item (by content, as lm-eval compares documents) and keeps
    the first ``k``, so an item never sees itself as an example.
    """
    count = items if isinstance(items, int) else len(items)
    needed = k + 1 if exclude_item else k
    if needed > len(pool):
        raise NegkitError(f"{k}-shot needs at least {needed} few-shot items; the {FEWSHOT_SPLIT} split has {len(pool)}")
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


class NubenchTask:
    """Thunder-NUBench multiple choice with one prompt, zero-shot (``num_fewshot=0``) or k-shot over seeds."""

    #: Set by the suite that asks it (:mod:`negkit.benchmarks.nubench`): the task name and the data folder.
    name = ""
    dataset = ""
    model_kind = "language_model"
    accepts = frozenset({"prompt", "num_fewshot", "chat", "system_instruction", "bos"})
    splits: tuple[str, ...] = ("validation", "test")

    def __init__(self, prompt: str = "7", num_fewshot: int = 0, seeds: Sequence[int] = FEWSHOT_SEEDS,
                 chat: bool = False, system_instruction: str | None = None, bos: str = "tokenizer") -> None:
        render_prompt(prompt, "")  # validates the id
        if num_fewshot < 0:
            raise NegkitError("num_fewshot must be >= 0")
        if bos not in BOS_POLICIES:
            raise NegkitError(f"unknown BOS policy {bos!r}; choose one of {', '.join(BOS_POLICIES)}")
        self.bos = bos
        self.prompt = str(prompt)
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
            "prompt": prompt_file()["prompts"][self.prompt],
            "num_fewshot": self.num_fewshot,
            "seeds": list(self.seeds),
            "target_delimiter": self.target_delimiter,
            "fewshot_delimiter": FEWSHOT_DELIMITER,
            "chat": self.chat,
            "system_instruction": self.system_instruction,
            "fewshot_split": FEWSHOT_SPLIT if self.num_fewshot else None,
            "fewshot_excludes_item": self.exclude_item,
            "bos": self.bos,
        }

    @property
    def target_delimiter(self) -> str:
        return "" if self.chat else TARGET_DELIMITER

    def prompt_template(self, model: Any) -> str:
        """The context with ``{s}`` for the sentence (and ``{fewshot_examples}`` for the k-shot block)."""
        prefix = "{fewshot_examples}" if self.num_fewshot else ""
        return self._context(prefix + prompt_file()["prompts"][self.prompt], model)

    def _context(self, text: str, model: Any) -> str:
        if self.chat and model is None:
            raise NegkitError("the chat template needs the model")
        return wrap_prompt(text, model, self.chat, self.system_instruction)

    def locate(self, data: str | Path | None) -> Path | None:
        """The local data root (``ROOT/multiple-choice/...``) negkit would read, or None (then the hub is tried)."""
        return locate_nubench_root(data)

    def load(self, data: str | Path | None, split: str, limit: int | None, seed: int) -> TaskData:
        """Read ``split`` (and the validation split for few-shot); ``limit`` keeps the first items, as lm-eval's."""
        root = locate_nubench_root(data)
        if root is None and data is not None:
            raise DataNotFoundError(f"Thunder-NUBench not found in {data} (expected {Path(data)}/multiple-choice/ or "
                                    f"{Path(data)}/thunder-nubench/multiple-choice/ holding {split}.jsonl)")
        items = load_choice_items(split, root)
        files = [find_split_file(root, "multiple-choice", split)] if root else []
        if self.num_fewshot:
            self.pool = load_choice_items(FEWSHOT_SPLIT, root)
            files += [find_split_file(root, "multiple-choice", FEWSHOT_SPLIT)] if root else []
        total = len(items)
        limit = resolve_limit(limit, total)
        if limit is not None:
            items = items[:limit]
        self.exclude_item = split == FEWSHOT_SPLIT
        source = str(root) if root else "hub"
        return TaskData(items, files, {"split": split, "limit": limit, "count": len(items), "items_in_split": total,
                                       "source": source})

    def requests(self, items: Sequence[ChoiceItem], model: Any = None) -> list[tuple[LoglikelihoodRequest, ...]]:
        """Per item: every candidate as a continuation, for each run in :attr:`runs` order."""
        prefixes_per_run = self._prefixes(items)
        delimiter = self.target_delimiter
        per_item: list[tuple[LoglikelihoodRequest, ...]] = []
        for position, item in enumerate(items):
            prompt = render_prompt(self.prompt, item.sentence)
            contexts = [self._context(prefixes[position] + prompt, model) for prefixes in prefixes_per_run]
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
            raise NegkitError("few-shot needs the validation split: call load() first")
        draws = [sample_fewshot(self.pool, self.num_fewshot, seed, items, self.exclude_item) for seed in self.seeds]
        self.fewshot_ids = [[[example.item_id for example in examples] for examples in run] for run in draws]
        return [[fewshot_prefix(examples, self.prompt) for examples in run] for run in draws]

    def records(self, items: Sequence[ChoiceItem], responses: Sequence[Sequence[LoglikelihoodResult]]) -> list[dict[str, Any]]:
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
            records.append(one_path.item_record(item, runs))
        return records

    def metrics(self, items: Sequence[ChoiceItem], records: Sequence[dict[str, Any]]) -> dict[str, Any]:
        """acc, acc_norm and the error analysis of each run the records hold (a predictions file names its own)."""
        runs = one_path.record_runs(records) or self.runs
        return nubench_metrics(records, runs) | {"prompt_id": self.prompt, "num_fewshot": self.num_fewshot}

    def estimands(self, items: Sequence[ChoiceItem], records: Sequence[dict[str, Any]],
                  headline_only: bool = False) -> list[Estimand]:
        """acc, acc_norm (their mean over runs is the headline) and the error analysis, resampling items
        (:mod:`negkit.benchmarks.nubench.intervals`)."""
        return nubench_estimands(records, one_path.record_runs(records) or self.runs, headline_only)

    def harness_scores(self, records: Sequence[dict[str, Any]]) -> dict[str, list[float]]:
        return one_path.harness_scores(records)

    def items_from_records(self, records: Sequence[dict[str, Any]], path: Path) -> list[ChoiceItem]:
        return one_path.items_from_records(records, path)

    def scored_items(self, data: str | Path | None) -> list[ChoiceItem]:
        """The items a predictions file may name (``negkit score``): both splits."""
        return one_path.scored_items(data)

    def predictions(self, path: Path, items: Sequence[ChoiceItem]) -> list[dict[str, Any]]:
        """A predictions file's records in the eval's shape (:mod:`negkit.benchmarks.nubench.records`)."""
        return one_path.predicted_records(path, items)

    def scored_metrics(self, metrics: dict[str, Any], name: str, items: Sequence[ChoiceItem]) -> dict[str, Any]:
        return one_path.scored_metrics(metrics, name)


def nubench_metrics(records: Sequence[dict[str, Any]], runs: Sequence[str]) -> dict[str, Any]:
    """acc, acc_norm and the error analysis per run, plus mean and SD over runs.

    Records need ``choice2_type`` and, per run they take part in, ``prediction`` and ``prediction_norm`` (choice
    names; ``prediction_norm`` may be None, and acc_norm is then None). A run counts the records that have it.
    """
    per_run: dict[str, Any] = {}
    for run in runs:
        chosen = [record for record in records if run in record["runs"]]
        types = [record["choice2_type"] for record in chosen]
        names = [record["runs"][run]["prediction"] for record in chosen]
        names_norm = [record["runs"][run].get("prediction_norm") for record in chosen]
        analysis = error_analysis(names, types)
        per_run[run] = {
            "count": len(chosen),
            "acc": 1.0 - analysis.error_rate,
            "acc_norm": None if None in names_norm else 1.0 - error_analysis(names_norm, types).error_rate,
            # share of all answers that picked each choice (acc predictions): the choice distribution
            "choice_share": {name: (names.count(name) / len(names) if names else 0.0) for name in CHOICE_NAMES},
            "error_analysis": {
                "error_rate": analysis.error_rate,
                "errors": analysis.errors,
                "error_share_percent": analysis.error_share,
                "confusion_rate": analysis.confusion_rate,
            },
        }
    summary: dict[str, Any] = {}
    for metric in ("acc", "acc_norm"):
        values = [per_run[run][metric] for run in runs]
        if None in values:
            summary[metric] = {"mean": None, "sd": None}
        else:
            mean, sd = mean_and_sd(values)
            summary[metric] = {"mean": mean, "sd": sd}
    return {"count": len(records), "runs": per_run, "summary": summary}
