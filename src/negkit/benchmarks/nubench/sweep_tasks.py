"""Thunder-NUBench prompt sweeps (paper Tables 11-14): many prompts and shot settings asked in one task.

Two tasks, each a bundle of Thunder-NUBench tasks (:data:`~negkit.benchmarks.nubench.task.NUBENCH`, one per prompt
and shot setting) over the same items:

- ``nubench-prompts`` (Tables 11-13): prompts 1-12 and the wording variants 7-1 ... 7-5, zero-shot. Runs are
  named ``PROMPT/zero-shot``.
- ``nubench-fewshot`` (Table 14): the default (1), instruction (7) and reasoning (11) prompts, zero-shot and
  ``num_fewshot``-shot (default 5) over the seeds 42, 1234, 3000, 5000, 7000. Runs are ``PROMPT/zero-shot`` and
  ``PROMPT/seed-N``.

Every request of every prompt and seed goes to the engine in one list, so what the prompts have in common is
computed once: the run store keeps one answer per distinct request (the zero-shot requests of prompts 1, 7 and
11 are the same in both tasks, so a second task in the same output folder reads them from the store), and the
prefix tree runs a shared token prefix once per batch (the four or three candidates of an item under one prompt
always share their context; the wording variants 7, 7-1, 7-2 and 7-3 share prompt 7's instruction block, the
sentence and the newline after it; 7-4 and 7-5 share the instruction block; five-shot contexts of one seed share
their examples). ``results.json``'s ``engine`` counts the prefix tokens reused.

Each run is scored exactly as a single ``nubench`` run with that prompt and seed (same requests, same records);
the metrics add a ``prompts`` table per prompt: ``zero-shot`` acc / acc_norm and, with few-shot, their mean and
sample SD over the seeds.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from negkit.benchmarks.nubench import records as one_path
from negkit.benchmarks.nubench.data import (
    DATA_FOLDER,
    ChoiceItem,
    find_split_file,
    load_choice_items,
    locate_nubench_root,
)
from negkit.benchmarks.nubench.intervals import nubench_estimands, nubench_run_estimands
from negkit.benchmarks.nubench.task import (
    BOS_POLICIES,
    FEWSHOT_SEEDS,
    FEWSHOT_SPLIT,
    NUBENCH,
    nubench_metrics,
    prompt_ids,
)
from negkit.errors import NegkitError
from negkit.kit.metrics.choice import mean_and_sd
from negkit.kit.metrics.intervals import Estimand
from negkit.kit.tasks.base import TaskData
from negkit.kit.tasks.negation_choice import NegationChoiceTask
from negkit.models.base import LoglikelihoodRequest, LoglikelihoodResult

#: The prompts of Tables 11 and 12 (1-12) and of Table 13 (7 and its wording variants).
TABLE_PROMPTS: tuple[str, ...] = tuple(str(number) for number in range(1, 13))
VARIANT_PROMPTS: tuple[str, ...] = ("7", "7-1", "7-2", "7-3", "7-4", "7-5")
#: The prompts of Table 14: default, instruction and reasoning.
FEWSHOT_PROMPTS: tuple[str, ...] = ("1", "7", "11")
#: Each prompt's type as the paper's Tables 11 and 12 print it.
PROMPT_TYPES: dict[str, str] = {
    **{p: "default" for p in ("1", "2", "3", "4", "5", "6")},
    **{p: "instruction" for p in ("7", "8", "9", "7-1", "7-2", "7-3", "7-4", "7-5")},
    "10": "role",
    "11": "reasoning",
    "12": "reasoning",
}
ZERO_SHOT = "zero-shot"


def run_name(prompt: str, run: str) -> str:
    """The sweep's name of a single-prompt run: ``PROMPT/zero-shot`` or ``PROMPT/seed-N``."""
    return f"{prompt}/{run}"


class NubenchSweep:
    """Several prompts (each zero-shot, and ``num_fewshot``-shot over ``seeds`` when ``num_fewshot`` > 0)
    asked over the same items in one task; see the module documentation."""

    name = "nubench-sweep"
    dataset = DATA_FOLDER
    model_kind = "language_model"
    accepts = frozenset({"chat", "system_instruction", "bos"})
    splits: tuple[str, ...] = ("validation", "test")

    def __init__(
        self,
        prompts: Sequence[str],
        num_fewshot: int = 0,
        seeds: Sequence[int] = FEWSHOT_SEEDS,
        chat: bool = False,
        system_instruction: str | None = None,
        bos: str = "tokenizer",
    ) -> None:
        if not prompts:
            raise NegkitError("a prompt sweep needs at least one prompt")
        options: dict[str, Any] = {"chat": chat, "system_instruction": system_instruction, "bos": bos}
        self.prompts = tuple(str(prompt) for prompt in prompts)
        self.num_fewshot = num_fewshot
        self.seeds = tuple(seeds) if num_fewshot else ()
        self.chat, self.system_instruction, self.bos = bool(chat), system_instruction, bos
        #: Per item id, the context of each request (filled by :meth:`requests`, read by :meth:`records`).
        self._contexts: dict[str, list[str]] = {}
        #: (prompt, single-prompt task) pairs, zero-shot first then few-shot, in prompt order.
        self.parts: list[tuple[str, NegationChoiceTask]] = []
        for prompt in self.prompts:
            self.parts.append((prompt, NUBENCH.task(prompt=prompt, num_fewshot=0, **options)))
            if num_fewshot:
                self.parts.append(
                    (prompt, NUBENCH.task(prompt=prompt, num_fewshot=num_fewshot, seeds=seeds, **options))
                )

    @property
    def uses_seed(self) -> bool:
        return bool(self.num_fewshot)

    @property
    def runs(self) -> list[str]:
        """Every run, in request order: ``PROMPT/zero-shot`` and ``PROMPT/seed-N``."""
        return [run_name(prompt, run) for prompt, part in self.parts for run in part.runs]

    def config(self) -> dict[str, Any]:
        first = self.parts[0][1].config()
        return {
            "task": self.name,
            "prompt_ids": list(self.prompts),
            "prompts": {prompt: part.config()["prompt"] for prompt, part in self.parts},
            "num_fewshot": self.num_fewshot,
            "seeds": list(self.seeds),
            "runs": self.runs,
            **{
                key: first[key]
                for key in ("target_delimiter", "fewshot_delimiter", "chat", "system_instruction", "bos")
            },
            "fewshot_split": FEWSHOT_SPLIT if self.num_fewshot else None,
            "fewshot_excludes_item": self.parts[-1][1].exclude_item,
        }

    def prompt_template(self, model: Any) -> str:
        """The templates of every part, one per line block (``=== PROMPT (SETTING) ===`` headers)."""
        blocks = []
        for prompt, part in self.parts:
            setting = f"{part.num_fewshot}-shot" if part.num_fewshot else ZERO_SHOT
            blocks.append(f"=== {prompt} ({setting}) ===\n{part.prompt_template(model)}")
        return "\n".join(blocks)

    def locate(self, data: str | Path | None) -> Path | None:
        """The local data root (``ROOT/multiple-choice/...``), or None (then the hub is tried)."""
        return locate_nubench_root(data)

    def load(self, data: str | Path | None, split: str, limit: int | None, seed: int) -> TaskData:
        """The items of ``split`` (and the validation pool for few-shot), read once for every part."""
        first = self.parts[0][1]
        loaded = first.load(data, split, limit, seed)
        if self.num_fewshot:
            root = locate_nubench_root(data)
            pool = load_choice_items(FEWSHOT_SPLIT, root)
            if root is not None:
                loaded.files.append(find_split_file(root, "multiple-choice", FEWSHOT_SPLIT))
        for _prompt, part in self.parts:
            part.exclude_item = split == FEWSHOT_SPLIT
            if part.num_fewshot:
                part.pool = pool
        return loaded

    def requests(self, items: Sequence[ChoiceItem], model: Any = None) -> list[tuple[LoglikelihoodRequest, ...]]:
        """Per item: every part's requests, in :attr:`parts` order (one list: the engine shares prefixes)."""
        per_part = [part.requests(items, model) for _prompt, part in self.parts]
        per_item = [tuple(request for part in per_part for request in part[position]) for position in range(len(items))]
        self._contexts = {
            item.item_id: [request.context for request in requests] for item, requests in zip(items, per_item)
        }
        return per_item

    def records(
        self, items: Sequence[ChoiceItem], responses: Sequence[Sequence[LoglikelihoodResult]]
    ) -> list[dict[str, Any]]:
        """Per item: one record whose ``runs`` hold every part's runs under their sweep names, each with its
        exact ``prompt``."""
        records = []
        for item, answers in zip(items, responses):
            size = len(item.candidates)
            runs: dict[str, Any] = {}
            offset = 0
            record: dict[str, Any] = {}
            for prompt, part in self.parts:
                width = size * len(part.runs)
                record = part.records([item], [answers[offset : offset + width]])[0]
                for index, (run, values) in enumerate(record["runs"].items()):
                    if item.item_id in self._contexts:
                        values["prompt"] = self._contexts[item.item_id][offset + index * size]
                    runs[run_name(prompt, run)] = values
                offset += width
            if offset != len(answers):
                raise NegkitError(f"item {item.item_id}: expected {offset} answers, got {len(answers)}")
            records.append({**{key: value for key, value in record.items() if key != "runs"}, "runs": runs})
        return records

    def metrics(self, items: Sequence[ChoiceItem], records: Sequence[dict[str, Any]]) -> dict[str, Any]:
        """Per run acc / acc_norm and the error analysis; per prompt its zero-shot and few-shot figures."""
        metrics = nubench_metrics(records, self.runs)
        del metrics["summary"]  # a mean over different prompts means nothing
        metrics["prompts"] = sweep_prompt_table(metrics["runs"], self.prompts, self.seeds)
        return metrics | {"prompt_ids": list(self.prompts), "num_fewshot": self.num_fewshot, "seeds": list(self.seeds)}

    def estimands(
        self, items: Sequence[ChoiceItem], records: Sequence[dict[str, Any]], headline_only: bool = False
    ) -> list[Estimand]:
        """Every run's acc and acc_norm (the item is the unit); ``negkit compare`` (``headline_only``) compares
        sweeps on the means over all their runs of acc and acc_norm, as it compares a ``nubench`` run."""
        runs = one_path.record_runs(records) or self.runs
        if headline_only:
            return nubench_estimands(records, runs, headline_only=True)
        return nubench_run_estimands(records, runs)

    def harness_scores(self, records: Sequence[dict[str, Any]]) -> dict[str, list[float]]:
        return one_path.harness_scores(records)

    def items_from_records(self, records: Sequence[dict[str, Any]], path: Path) -> list[ChoiceItem]:
        return one_path.items_from_records(records, path)


def sweep_prompt_table(runs: dict[str, Any], prompts: Sequence[str], seeds: Sequence[int]) -> dict[str, Any]:
    """Per prompt: ``type``, ``zero-shot`` ``{acc, acc_norm}``, and with ``seeds`` a ``few-shot`` entry with
    ``{acc: {mean, sd}, acc_norm: {mean, sd}}`` over the seeds (sample SD)."""
    table: dict[str, Any] = {}
    for prompt in prompts:
        zero = runs[run_name(prompt, ZERO_SHOT)]
        entry: dict[str, Any] = {
            "type": PROMPT_TYPES.get(prompt, "?"),
            ZERO_SHOT: {"acc": zero["acc"], "acc_norm": zero["acc_norm"]},
        }
        if seeds:
            shots = [runs[run_name(prompt, f"seed-{seed}")] for seed in seeds]
            entry["few-shot"] = {}
            for metric in ("acc", "acc_norm"):
                values = [shot[metric] for shot in shots]
                mean, sd = (None, None) if None in values else mean_and_sd(values)
                entry["few-shot"][metric] = {"mean": mean, "sd": sd}
        table[prompt] = entry
    return table


#: The sweep tasks' names and one-line descriptions (the Thunder-NUBench suite registers them).
PROMPTS_TASK = "nubench-prompts"
FEWSHOT_TASK = "nubench-fewshot"
PROMPTS_DESCRIPTION = "Thunder-NUBench prompt sweep (Tables 11-13): prompts 1-12 and 7-1..7-5, zero-shot"
FEWSHOT_DESCRIPTION = "Thunder-NUBench Table 14: prompts 1, 7, 11, zero-shot and 5-shot over five seeds"


def prompts_task(chat: bool = False, system_instruction: str | None = None, bos: str = "tokenizer") -> NubenchSweep:
    """Every prompt of the paper's Tables 10 and 13, zero-shot."""
    task = NubenchSweep(prompt_ids(), 0, (), chat, system_instruction, bos)
    task.name = PROMPTS_TASK
    return task


def fewshot_task(
    num_fewshot: int = 5,
    seeds: Sequence[int] = FEWSHOT_SEEDS,
    chat: bool = False,
    system_instruction: str | None = None,
    bos: str = "tokenizer",
) -> NubenchSweep:
    """Prompts 1, 7 and 11, zero-shot and ``num_fewshot``-shot over ``seeds``."""
    if num_fewshot < 1:
        raise NegkitError("nubench-fewshot needs --num-fewshot of at least 1 (its zero-shot runs are always there)")
    if bos not in BOS_POLICIES:
        raise NegkitError(f"unknown BOS policy {bos!r}; choose one of {', '.join(BOS_POLICIES)}")
    task = NubenchSweep(FEWSHOT_PROMPTS, num_fewshot, seeds, chat, system_instruction, bos)
    task.name = FEWSHOT_TASK
    task.accepts = frozenset({"num_fewshot", "chat", "system_instruction", "bos"})
    return task
