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
from collections.abc import Sequence
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from negkit.benchmarks.nubench.data import (
    DATA_FOLDER,
    MULTIPLE_CHOICE,
    ChoiceItem,
    find_split_file,
    load_choice_items,
    locate_nubench_root,
)
from negkit.benchmarks.nubench.intervals import UNIT
from negkit.benchmarks.nubench.metrics import LOCAL_NEGATION_TYPES
from negkit.benchmarks.nubench.records import positional_item_id, scored_items
from negkit.errors import DataNotFoundError, NegkitError
from negkit.kit.metrics.negation_choice import choice_metrics
from negkit.kit.tasks.negation_choice import (
    BOS_POLICIES,
    FEWSHOT_DELIMITER,
    FEWSHOT_SEEDS,
    TARGET_DELIMITER,
    NegationChoice,
    fewshot_block,
    sample_fewshot,
)

__all__ = [
    "BOS_POLICIES",
    "FEWSHOT_DELIMITER",
    "FEWSHOT_SEEDS",
    "FEWSHOT_SPLIT",
    "NUBENCH",
    "TARGET_DELIMITER",
    "fewshot_prefix",
    "instruction_block",
    "nubench_metrics",
    "prompt_file",
    "prompt_ids",
    "render_prompt",
    "sample_fewshot",
]

FEWSHOT_SPLIT = "validation"


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
    return fewshot_block(examples, lambda sentence: render_prompt(prompt_id, sentence))


def locate_split(data: str | Path | None, split: str) -> Path | None:
    """The local data root (``ROOT/multiple-choice/...``) ``split`` is read from, or None (then the hub is tried);
    a ``data`` folder without it is an error."""
    root = locate_nubench_root(data)
    if root is None and data is not None:
        raise DataNotFoundError(
            f"Thunder-NUBench not found in {data} (expected {Path(data)}/multiple-choice/ or "
            f"{Path(data)}/thunder-nubench/multiple-choice/ holding {split}.jsonl)"
        )
    return root


def read_split(root: Path | None, split: str) -> list[ChoiceItem]:
    """The items of ``split`` from the local root, or from the hub when there is none."""
    return load_choice_items(split, root)


#: Thunder-NUBench multiple choice with one prompt, zero-shot or k-shot over seeds: the kit's standard-negation
#: multiple choice with the paper's prompts, the ``multiple-choice`` splits (local folder or the hub) and its
#: local-negation types.
NUBENCH = NegationChoice(
    "nubench",
    read_split,
    lambda root, split: [find_split_file(root, MULTIPLE_CHOICE, split)],
    title="Thunder-NUBench multiple choice",
    benchmark="Thunder-NUBench",
    dataset=DATA_FOLDER,
    unit=UNIT,
    prompts=prompt_file()["prompts"],
    default_prompt="7",
    local_types=LOCAL_NEGATION_TYPES,
    fewshot_split=FEWSHOT_SPLIT,
    locate=locate_split,
    scored_items=scored_items,
    item_id_from=positional_item_id,
)


def nubench_metrics(records: Sequence[dict[str, Any]], runs: Sequence[str]) -> dict[str, Any]:
    """acc, acc_norm and the error analysis per run, plus mean and SD over runs (the kit's
    :func:`~negkit.kit.metrics.negation_choice.choice_metrics` with Thunder-NUBench's local-negation types).

    Records need ``choice2_type`` and, per run they take part in, ``prediction`` and ``prediction_norm`` (choice
    names; ``prediction_norm`` may be None, and acc_norm is then None). A run counts the records that have it.
    """
    return choice_metrics(records, runs, LOCAL_NEGATION_TYPES)
