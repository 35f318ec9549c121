"""Thunder-NUBench (So et al., 2025): standard negation as multiple choice; the main task ``nubench`` scores the
candidates by log-likelihood after one of the paper's prompts (zero-shot, or k-shot averaged over seeds); see
:mod:`negkit.benchmarks.nubench.task`. Reader: :func:`negkit.benchmarks.nubench.data.load_choice_items`; metrics:
:func:`negkit.benchmarks.nubench.task.nubench_metrics` (acc, acc_norm, error analysis per run, mean and SD);
intervals resample items.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from negkit.benchmarks.nubench.data import (
    DATA_FOLDER,
    NEGATION_PAIRS,
    find_split_file,
    load_choice_items,
    load_negation_pairs,
    locate_nubench_root,
)
from negkit.benchmarks.nubench.hub_download import download_thunder_nubench
from negkit.benchmarks.nubench.stats import nubench_data_statistics
from negkit.benchmarks.nubench.sweep_tables import sweep_run_tables
from negkit.benchmarks.nubench.sweep_tasks import (
    FEWSHOT_DESCRIPTION,
    FEWSHOT_TASK,
    PROMPTS_DESCRIPTION,
    PROMPTS_TASK,
    fewshot_task,
    prompts_task,
)
from negkit.benchmarks.nubench.task import (
    BOS_POLICIES,
    FEWSHOT_DELIMITER,
    FEWSHOT_SPLIT,
    NUBENCH,
    TARGET_DELIMITER,
    instruction_block,
    render_prompt,
)
from negkit.errors import NegkitError
from negkit.io.atomic import atomic_write_jsonl, atomic_write_text
from negkit.kit.harness.layout import harness_task_yaml
from negkit.kit.render.negation_choice import choice_figures
from negkit.kit.suites.description import (
    DataSource,
    HarnessExport,
    SuiteDescription,
    TaskEntry,
    task_flag,
)
from negkit.kit.suites.registry import register_suite
from negkit.kit.tasks.base import TaskData
from negkit.kit.training_data.declaration import TrainingSource, register_training
from negkit.kit.training_data.examples import Example, TrainingData, answer_completion

#: The papers behind the data and protocol (``negkit cite``).
BIBTEX = r"""@misc{so2025,
  title = {Thunder-{NUB}ench: A Benchmark for {LLM}s' Sentence-Level Negation Understanding},
  author = {So, Yeonkyoung and Lee, Gyuseong and Jung, Sungmok and Lee, Joonhak and Kang, JiA and Kim, Sangho and Lee, Jaejin},
  year = {2025},
  eprint = {2506.14397},
  archivePrefix = {arXiv},
  primaryClass = {cs.CL}
}"""

NAME = "nubench"
HARNESS_TASK = "negkit_nubench"


def _with_sweep_tables(factory: Callable[..., Any]) -> Callable[..., Any]:
    """``factory`` (a prompt-sweep task's), whose tasks write the sweep's per-run tables (the tables live in the
    report layer, above tasks)."""

    @functools.wraps(factory)
    def make(**options: Any) -> Any:
        task = factory(**options)
        task.tables = sweep_run_tables
        return task

    return make


#: The choice distribution per run and the choices taken per local-negation type.
nubench_figures = choice_figures("Thunder-NUBench")


def write_harness_task(
    task: Any, loaded: TaskData, out: Path, data: str | None, names: tuple[str, ...]
) -> dict[str, Any]:
    """The items (and the validation pool for few-shot) with the chosen prompt, for the Harness."""

    def docs(items: Sequence[Any]) -> list[dict[str, Any]]:
        return [
            {
                "item_id": item.item_id,
                "sentence": item.sentence,
                "choice2_type": item.choice2_type,
                "candidate_names": list(item.candidate_names),
                "prompt": render_prompt(task.prompt, item.sentence),
                "choices": list(item.candidates),
                "gold": 0,
            }
            for item in items
        ]

    files = {"test": f"{HARNESS_TASK}.test.jsonl"}
    atomic_write_jsonl(out / files["test"], docs(loaded.items))
    extra = ""
    if task.num_fewshot:
        files[FEWSHOT_SPLIT] = f"{HARNESS_TASK}.{FEWSHOT_SPLIT}.jsonl"
        atomic_write_jsonl(out / files[FEWSHOT_SPLIT], docs(task.pool))
        extra = (
            f"fewshot_split: {FEWSHOT_SPLIT}\nnum_fewshot: {task.num_fewshot}\n"
            f"fewshot_delimiter: {json.dumps(FEWSHOT_DELIMITER)}\n"
        )
    atomic_write_text(
        out / f"{HARNESS_TASK}.yaml",
        harness_task_yaml(
            HARNESS_TASK,
            "load_nubench",
            "prompt",
            "choices",
            "gold",
            " ",
            f"Thunder-NUBench, prompt {task.prompt}, {task.num_fewshot}-shot: candidates scored after the prompt.",
            extra,
        ).replace(
            "metric_list:\n", "metric_list:\n  - metric: acc_norm\n    aggregation: mean\n    higher_is_better: true\n"
        ),
    )
    return {"docs": files, "prompt_id": task.prompt, "num_fewshot": task.num_fewshot, "seeds": list(task.seeds)}


def _harness_notes(entry: dict[str, Any]) -> list[str]:
    if not entry["num_fewshot"]:
        return []
    seeds = entry["seeds"]
    return [
        f"Thunder-NUBench {entry['num_fewshot']}-shot: negkit runs the seeds {seeds}; the Harness "
        "runs one few-shot seed per command, the fourth number of `--seed`, e.g. "
        f"`--seed 0,1234,1234,{seeds[0]}` for negkit's run `seed-{seeds[0]}`.",
        "",
    ]


def nubench_examples(
    model: Any, data: str | Path | None = None, chat: bool = False, prompt_id: str = "7"
) -> TrainingData:
    """Thunder-NUBench sentence-negation pairs in the paper's SFT format.

    Without the chat template (default; how ``negkit eval --tasks nubench`` asks): prompt ``prompt_id`` (prompt 7 =
    the instruction block, ``\\nSentence: {premise}\\nNegation:``) and the completion ``" " + hypothesis`` (the
    evaluation's target delimiter is one space), then EOS. With ``chat``: the Alpaca record as one user turn
    (instruction, a newline, input) and the hypothesis as the assistant turn, the way LLaMA-Factory renders Alpaca
    data with a chat template.
    """
    root = locate_nubench_root(data)
    pairs = load_negation_pairs(root)
    if not pairs:
        raise NegkitError(f"no Thunder-NUBench sentence-negation pairs in {root or 'the hub data set'}")
    examples = []
    for pair in pairs:
        if chat:
            message = f"{instruction_block()}\nSentence: {pair.premise}\nNegation:"
            prompt = model.apply_chat_template([{"role": "user", "content": message}])
            completion, eos = answer_completion(model, prompt, message, pair.hypothesis, True)
        else:
            prompt, completion, eos = render_prompt(prompt_id, pair.premise), TARGET_DELIMITER + pair.hypothesis, True
        examples.append(Example(prompt, completion, eos, f"pair-{pair.index}"))
    files = [find_split_file(root, NEGATION_PAIRS, "train")] if root is not None else []
    description = {
        "kind": "nubench",
        "source": str(root) if root else "hub",
        "chat_template": chat,
        "prompt_id": None if chat else prompt_id,
        "pairs": len(pairs),
    }
    return TrainingData(examples, files, description)


def _build_training(model: Any, options: Any, split: str, limit: int | None) -> Any:
    return nubench_examples(model, options.data, chat=bool(options.chat))


def _check_training(options: Any) -> None:
    load_negation_pairs(locate_nubench_root(options.data))


TRAINING = TrainingSource(
    NAME, _build_training, "Thunder-NUBench sentence-negation pairs (the paper's SFT data)", check=_check_training
)


SUITE = register_suite(
    SuiteDescription(
        name="thunder-nubench",
        title="Thunder-NUBench",
        aliases=(NAME,),
        tasks=(
            TaskEntry(NAME, NUBENCH.task, "Thunder-NUBench: standard negation as multiple choice by log-likelihood"),
            # the prompt sweep of the paper's Tables 11-14 (`negkit nubench sweep`, negkit.studies.nubench.sweep)
            TaskEntry(PROMPTS_TASK, _with_sweep_tables(prompts_task), PROMPTS_DESCRIPTION),
            TaskEntry(FEWSHOT_TASK, _with_sweep_tables(fewshot_task), FEWSHOT_DESCRIPTION),
        ),
        main_task=NAME,
        data=DataSource(
            DATA_FOLDER,
            "gated hub data set thunder-research-group/SNU_Thunder-NUBench (accept its licence, log in), or a local "
            "copy DATA/thunder-nubench/multiple-choice/{validation,test}.jsonl; tests/fixtures/thunder_nubench is a "
            "hand-written sample in that layout",
            licence="the hub data set's licence (gated: accept it on the data set's page)",
            locate=locate_nubench_root,
            citation="so2025",
            build=download_thunder_nubench,
        ),
        bibtex=BIBTEX,
        reader=load_choice_items,
        scorer_help="Thunder-NUBench: acc, acc_norm, error analysis from {item_id, prediction[, prediction_norm, run]} lines",
        interval_unit="item",
        primary_metric="summary.acc.mean",
        figures=nubench_figures,
        harness=HarnessExport(
            (HARNESS_TASK,), write_harness_task, loaders={"load_nubench": NAME}, notes=_harness_notes
        ),
        task_flags=(
            task_flag(
                "--bos",
                option="bos",
                choices=tuple(BOS_POLICIES),
                help="Thunder-NUBench: a BOS token before the context: the tokenizer's choice (default, as "
                "lm-eval 0.4.13), none (as the older lm-eval the paper used), or always",
            ),
        ),
        statistics=nubench_data_statistics,
        order=20,
        groups=("negation-all",),
    )
)
register_training(SUITE, sources=(TRAINING,))
