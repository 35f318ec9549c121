"""TIND's Figure 2: train on one pattern, test on every pattern (an 11 x 11 accuracy matrix), and its "All" row
(train on every pattern at once, test on each).

:func:`transfer_train` (``negkit tind transfer-train``) runs one fine-tuning per pattern (the options of
``negkit finetune``, with ``--patterns P`` set per run) and scores every adapter, and the base model, on one
per-pattern test sample; :func:`transfer_matrix` (``negkit tind transfer-matrix``) assembles the matrix with
95% bootstrap intervals over groups and draws it as a heatmap.

Layout of ``OUT``::

    transfer.json             what was asked (model, options, patterns, test sample), how to reproduce it
    base/predictions.json     the base model's answers on the test sample
    pattern-NN/adapter/       negkit finetune --patterns NN (resumable: checkpoints, negkit_training.json)
    pattern-NN/predictions.json
    all/adapter/              with all_patterns (--all-row): negkit finetune on every pattern at once
    all/predictions.json

Every step is resumable: a finished fine-tuning or scoring is skipped (its files are written atomically at the
end), a killed fine-tuning resumes from its last complete checkpoint. ``jobs`` runs that many patterns at once,
each in its own process. Every fine-tuning and every scoring runs with ``threads`` torch threads, whatever ``jobs``
is: the thread count changes the order of floating-point sums, so this is what makes ``--jobs 2`` give exactly the
numbers of ``--jobs 1`` (``threads`` is part of the plan). Prediction files hold item ids, labels and
probabilities, never TIND sentences.
"""

from __future__ import annotations

import concurrent.futures
import hashlib
import multiprocessing
import random
import shlex
import sys
import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from negkit.benchmarks.tind.task import CANDIDATES, TruthTask, sample_groups, tind_source
from negkit.benchmarks.tind.training import _read_tind, subset_of, thin_groups
from negkit.errors import NegkitError
from negkit.io.atomic import atomic_write_bytes, atomic_write_json, atomic_write_text, make_folder
from negkit.kit.training import record
from negkit.kit.training.lm import finetune
from negkit.kit.training.options import FinetuneOptions, command_line
from negkit.models.adapter import adapter_weights_sha256, apply_adapter
from negkit.models.registry import load_model
from negkit.models.spec import parse_model_spec
from negkit.studies.tind.transfer_metrics import transfer_numbers
from negkit.studies.tind.transfer_report import transfer_heatmap, transfer_markdown

PATTERNS = tuple(range(1, 12))
PLAN_FILE = "transfer.json"
PREDICTIONS = "predictions.json"
BASE_ROW = "base"
#: The row trained on every pattern at once (Figure 2's "All").
ALL_ROW = "all"


@dataclass
class TransferOptions:
    """What :func:`transfer_train` takes besides the model."""

    out: str | Path = "negkit-transfer"
    #: The fine-tuning recipe; its ``out`` is replaced by ``OUT/pattern-NN/adapter`` and its pattern filter by
    #: the one pattern of each run.
    finetune: FinetuneOptions = field(default_factory=FinetuneOptions)
    #: The patterns trained on (rows); the test sample covers every pattern of the data (columns).
    patterns: tuple[int, ...] = PATTERNS
    #: The test sample: at most this many groups of every pattern, drawn with ``test_seed``...
    test_groups: int = 8
    #: ... and at most this many sentences of each group, balanced over its four cells (None: whole groups).
    test_per_group: int | None = 16
    test_split: str = "test"
    test_seed: int = 0
    #: Score the base model too (the matrix's reference row).
    base: bool = True
    #: Also fine-tune on every pattern at once and score that adapter (Figure 2's "All" row, ``all/``).
    all_patterns: bool = False
    #: Patterns fine-tuned at once, each in its own process.
    jobs: int = 1
    #: Torch threads of every fine-tuning and scoring, whatever ``jobs`` is (so the numbers do not depend on it).
    threads: int = 1
    batch_size: int | None = None
    #: Load the base model quantized when scoring (``8bit``, as TIND's authors evaluated; needs a CUDA GPU).
    eval_quantize: str | None = None

    def validate(self) -> None:
        if (not self.patterns and not self.all_patterns) or any(pattern not in PATTERNS for pattern in self.patterns):
            raise NegkitError(f"--patterns: TIND patterns are 1 to 11, got {list(self.patterns)}")
        for name in ("test_groups", "jobs", "threads"):
            if getattr(self, name) < 1:
                raise NegkitError(f"--{name.replace('_', '-')} must be at least 1, got {getattr(self, name)}")
        if self.test_per_group is not None and self.test_per_group < 1:
            raise NegkitError(f"--test-per-group must be at least 1, got {self.test_per_group}")
        if self.finetune.train != "tind":
            raise NegkitError(f"the transfer runs train on TIND, not {self.finetune.train!r}")
        if subset_of(self.finetune).patterns or subset_of(self.finetune).exclude_patterns:
            raise NegkitError(
                "the transfer runs choose each run's pattern themselves: no --patterns/--exclude-patterns "
                "in the fine-tuning options"
            )
        self.finetune.validate()

    def plan(self) -> dict[str, Any]:
        values = {
            key: value
            for key, value in asdict(self).items()
            if key not in ("out", "finetune", "jobs", "patterns", "all_patterns")
        }
        if values["eval_quantize"] is None:  # plans written before the option existed stay equal
            del values["eval_quantize"]
        return {**values, "finetune": self.finetune.plan()}


def row_name(pattern: int | None) -> str:
    """``pattern-NN``, or :data:`ALL_ROW` for the run on every pattern (``None``)."""
    return ALL_ROW if pattern is None else f"pattern-{pattern:02d}"


def transfer_train(model: str, options: TransferOptions | None = None) -> dict[str, Any]:
    """Fine-tune ``model`` on each pattern of ``options.patterns`` and score every adapter (and the base model)
    on the per-pattern test sample; return ``{row: status}``. Rerunning continues where a run stopped."""
    options = options or TransferOptions()
    options.validate()
    if parse_model_spec(model).is_classifier or not parse_model_spec(model).fine_tunable:
        raise NegkitError(f"{model}: the TIND transfer runs fine-tune a language model (default, hf:, gguf:)")
    out = Path(options.out)
    make_folder(out)
    items = transfer_test_sample(options)
    plan = {"model": model, "options": options.plan(), "test_sample": describe_test_sample(items, options)}
    old = record.read_json(out / PLAN_FILE)
    if old is not None and old.get("plan") != record.jsonable(plan):
        differing = ", ".join(record.plan_differences(old.get("plan") or {}, record.jsonable(plan))[:8])
        raise NegkitError(f"{out} holds transfer runs of another plan (different: {differing}); use another --out")
    atomic_write_json(
        out / PLAN_FILE,
        {
            "negkit_transfer": 1,
            "command": transfer_command(model, options),
            "patterns": list(options.patterns),
            "all_row": options.all_patterns or bool((old or {}).get("all_row")),
            "plan": plan,
        },
    )
    statuses: dict[str, str] = {}
    if options.base:
        statuses[BASE_ROW] = score_row(model, None, items, options, out / BASE_ROW)
    todo: list[int | None] = [*options.patterns, *([None] if options.all_patterns else [])]
    failures: dict[str, str] = {}
    if options.jobs == 1 or len(todo) == 1:
        for pattern in todo:
            statuses[row_name(pattern)] = run_pattern(model, options, pattern, items)
    else:
        context = multiprocessing.get_context("spawn")  # torch and fork do not mix
        with concurrent.futures.ProcessPoolExecutor(options.jobs, mp_context=context) as pool:
            futures = {pool.submit(run_pattern, model, options, pattern, items): pattern for pattern in todo}
            for future in concurrent.futures.as_completed(futures):
                pattern = futures[future]
                try:
                    statuses[row_name(pattern)] = future.result()
                except NegkitError as error:
                    failures[row_name(pattern)] = str(error)
    if failures:
        raise NegkitError("; ".join(f"{row}: {message}" for row, message in sorted(failures.items())))
    return statuses


def run_pattern(model: str, options: TransferOptions, pattern: int | None, items: list[Any]) -> str:
    """Fine-tune on ``pattern`` (None: every pattern at once; or resume, or skip when done), then score the
    adapter; the row's status."""
    use_threads(options.threads)  # in a worker process as in the main one: the same sums in the same order
    folder = Path(options.out) / row_name(pattern)
    recipe = pattern_recipe(options, pattern, folder / "adapter")
    _say(
        f"{row_name(pattern)}: fine-tuning ({subset_of(recipe).polarity} polarity, affirmative first "
        f"{recipe.affirmative_first}) -> {folder / 'adapter'}"
    )
    run = finetune(model, recipe)
    if run["status"] != "complete":
        _say(f"{row_name(pattern)}: stopped by the time budget at step {run['result']['global_step']}; scored as is")
    return score_row(model, folder / "adapter", items, options, folder, status=run["status"])


def pattern_recipe(options: TransferOptions, pattern: int | None, adapter: Path) -> FinetuneOptions:
    """The fine-tuning options of one pattern's run: the recipe with ``--patterns PATTERN`` (None: the recipe as
    it is, every pattern); an ``--affirmative-first N`` larger than the run's affirmative training sentences is
    capped at their number."""
    recipe = options.finetune
    patterns = () if pattern is None else (pattern,)
    recipe = replace(recipe, out=adapter, subset=replace(subset_of(recipe), patterns=patterns))
    if recipe.affirmative_first is not None:
        recipe = replace(recipe, affirmative_first=min(recipe.affirmative_first, affirmative_count(recipe)))
    return recipe


def affirmative_count(recipe: FinetuneOptions) -> int:
    """How many affirmative sentences the training data of ``recipe`` holds (as :func:`tind_examples` selects)."""
    items = [
        item
        for item in _read_tind(tind_source(recipe.data), recipe.split, recipe.split_seed)
        if subset_of(recipe).keeps(item)
    ]
    per_group = subset_of(recipe).per_group
    if per_group is not None:
        items = thin_groups(items, per_group, recipe.seed)
    if recipe.limit is not None and items:
        items = sample_groups(items, recipe.limit, recipe.seed)
    count = sum(1 for item in items if not item.is_negated)
    if count == 0:
        raise NegkitError(
            f"pattern {subset_of(recipe).patterns}: no affirmative training sentences for --affirmative-first"
        )
    return count


def transfer_test_sample(options: TransferOptions) -> list[Any]:
    """The test sentences: ``test_groups`` groups of every pattern (drawn with ``test_seed``), each thinned to
    ``test_per_group`` sentences balanced over its four cells; the split is the fine-tunings' (``split_seed``)."""
    recipe = options.finetune
    items = _read_tind(tind_source(recipe.data), options.test_split, recipe.split_seed)
    if not items:
        raise NegkitError(f"no TIND sentences in split {options.test_split!r}")
    groups: dict[int, list[tuple[int, int]]] = {}
    for key in sorted({item.group_key for item in items}):
        groups.setdefault(key[0], []).append(key)
    chosen = set()
    for pattern, keys in groups.items():
        chosen.update(random.Random(f"{options.test_seed}:{pattern}").sample(keys, min(options.test_groups, len(keys))))
    items = [item for item in items if item.group_key in chosen]
    if options.test_per_group is not None:
        items = thin_groups(items, options.test_per_group, options.test_seed)
    return items


def describe_test_sample(items: list[Any], options: TransferOptions) -> dict[str, Any]:
    per_pattern: dict[str, list[int]] = {}
    for item in items:
        entry = per_pattern.setdefault(f"{item.pattern_id:02d}", [0, 0])
        entry[1] += 1
    for pattern in per_pattern:
        per_pattern[pattern][0] = len({item.group_key for item in items if f"{item.pattern_id:02d}" == pattern})
    ids = "\n".join(item.item_id for item in items).encode("utf-8")
    return {
        "split": options.test_split,
        "split_seed": options.finetune.split_seed,
        "seed": options.test_seed,
        "groups_per_pattern": options.test_groups,
        "sentences_per_group": options.test_per_group,
        "sentences": len(items),
        "groups": len({item.group_key for item in items}),
        "per_pattern": {
            pattern: {"groups": groups, "sentences": sentences}
            for pattern, (groups, sentences) in sorted(per_pattern.items())
        },
        "item_ids_sha256": hashlib.sha256(ids).hexdigest(),
    }


def score_row(
    model: str, adapter: Path | None, items: list[Any], options: TransferOptions, folder: Path, status: str = "complete"
) -> str:
    """Score ``items`` with the model (and adapter) into ``folder/predictions.json``; skipped when that file
    already holds this adapter's answers on this sample."""
    make_folder(folder)
    sample_sha = describe_test_sample(items, options)["item_ids_sha256"]
    weights = adapter_weights_sha256(adapter) if adapter is not None else None
    done = record.read_json(folder / PREDICTIONS)
    if done and done.get("item_ids_sha256") == sample_sha and done.get("adapter_weights_sha256") == weights:
        return status
    started = time.perf_counter()
    use_threads(options.threads)
    recipe = options.finetune
    extra = {
        key: value
        for key, value in (
            ("device", recipe.device),
            ("batch_size", options.batch_size),
            ("quantize", options.eval_quantize),
        )
        if value
    }
    lm = load_model(model, dtype=recipe.dtype, **extra, **recipe.model_args)
    if adapter is not None:
        apply_adapter(lm, adapter)
    task = TruthTask(chat=recipe.chat)
    _say(f"{folder.name}: scoring {len(items)} test sentences")
    answers = lm.next_token_logprobs([task.prompt(item.sentence, lm) for item in items], CANDIDATES)
    records = task.records(items, [(answer,) for answer in answers])
    keep = ("item_id", "pattern_id", "test_id", "label", "p_true", "prediction")
    rows = [
        {
            "group": item.group_id,
            **{key: row[key] for key in keep if key in row},
            "negated": item.is_negated,
            "distractor": item.is_distractor,
        }
        for item, row in zip(items, records)
    ]
    atomic_write_json(
        folder / PREDICTIONS,
        {
            "negkit_transfer_predictions": 1,
            "row": folder.name,
            "model": model,
            "status": status,
            "adapter": str(adapter) if adapter is not None else None,
            "adapter_weights_sha256": weights,
            "chat_template": task.uses_chat(lm),
            "item_ids_sha256": sample_sha,
            "sentences": len(rows),
            "threads": options.threads,
            "seconds": round(time.perf_counter() - started, 2),
            "records": rows,
        },
        indent=None,
    )
    return status


def use_threads(threads: int) -> None:
    """Run torch with ``threads`` intra-op threads in this process."""
    import torch  # heavy: off the start-up path

    torch.set_num_threads(threads)


def transfer_matrix(out: str | Path, resamples: int = 1000, seed: int = 0, plots: bool = True) -> dict[str, Any]:
    """Assemble the matrix from the rows scored so far in ``out`` (by :func:`transfer_train`): write
    ``matrix.json``, ``matrix.md`` and (with matplotlib) ``matrix.svg`` and ``matrix.png``; return the numbers."""
    out = Path(out)
    plan = record.read_json(out / PLAN_FILE)
    if plan is None:
        raise NegkitError(f"{out}: no {PLAN_FILE}; run negkit tind transfer-train --out {out} first")
    rows: dict[str, list[dict[str, Any]]] = {}
    trained: dict[str, int] = {}
    training: dict[str, Any] = {}
    trained_rows = [*((row_name(p), p) for p in plan["patterns"]), *([(ALL_ROW, None)] if plan.get("all_row") else [])]
    for name, pattern in [(BASE_ROW, None), *trained_rows]:
        predictions = record.read_json(out / name / PREDICTIONS)
        if predictions is None:
            continue
        rows[name] = predictions["records"]
        if name != BASE_ROW:
            if pattern is not None:
                trained[name] = pattern
            done = record.read_json(out / name / "adapter" / record.TRAINING_RECORD) or {}
            result = done.get("result") or {}
            training[name] = {
                "status": done.get("status"),
                "steps": result.get("global_step"),
                "train_examples": ((done.get("data") or {}).get("train") or {}).get("examples"),
                "seconds": result.get("session_seconds"),
            }
    if not rows:
        raise NegkitError(f"{out}: no scored rows yet (no */{PREDICTIONS}); run negkit tind transfer-train first")
    numbers = transfer_numbers(rows, BASE_ROW if BASE_ROW in rows else None, trained, resamples, seed)
    numbers.update(
        command=plan["command"],
        model=plan["plan"]["model"],
        test_sample=plan["plan"]["test_sample"],
        training=training,
        missing=[name for name, _pattern in trained_rows if name not in rows],
        reproduce=f"{plan['command']} && negkit tind transfer-matrix {out}",
    )
    atomic_write_json(out / "matrix.json", numbers)
    notes = (
        f"Model `{numbers['model']}`; test sample: {numbers['test_sample']['sentences']} sentences in "
        f"{numbers['test_sample']['groups']} groups of split `{numbers['test_sample']['split']}`."
        + (f" Rows not scored yet: {', '.join(numbers['missing'])}." if numbers["missing"] else "")
        + f"\n\nReproduce: `{numbers['reproduce']}`"
    )
    atomic_write_text(out / "matrix.md", transfer_markdown(numbers, notes=notes))
    if plots:
        svg, png = transfer_heatmap(numbers)
        atomic_write_text(out / "matrix.svg", svg + "\n")
        atomic_write_bytes(out / "matrix.png", png)
    return numbers


def transfer_command(model: str, options: TransferOptions) -> str:
    """The ``negkit tind transfer-train`` command that reproduces ``options`` (the recipe as finetune flags)."""
    head = shlex.join(["negkit", "finetune", "--model", model, "--train", options.finetune.train, "--out", "OUT"])
    recipe = command_line(model, replace(options.finetune, progress=True), "OUT")[len(head) + 1 :]
    words = [
        f"negkit tind transfer-train --model {model} --out {options.out}",
        f"--patterns {','.join(map(str, options.patterns)) or 'none'}",
        f"--test-groups {options.test_groups}",
        f"--test-split {options.test_split}",
        f"--test-seed {options.test_seed}",
        f"--threads {options.threads}",
    ]
    if options.test_per_group is not None:
        words.append(f"--test-per-group {options.test_per_group}")
    if not options.base:
        words.append("--no-base")
    if options.all_patterns:
        words.append("--all-row")
    if options.eval_quantize:
        words.append(f"--eval-quantize {options.eval_quantize}")
    return " ".join(words + [recipe])


def _say(message: str) -> None:
    print(f"negkit: {message}", file=sys.stderr, flush=True)


__all__ = ["TransferOptions", "pattern_recipe", "transfer_matrix", "transfer_test_sample", "transfer_train"]
