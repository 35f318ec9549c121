"""``negkit export lm-eval``: negkit's tasks as LM Evaluation Harness tasks (``lm_eval --include_path DIR``).

The folder written holds one YAML file per task, ``utils.py`` (the data loaders: standard library and
``datasets`` only, see :mod:`negkit.export.lm_eval_utils`), ``negkit_export.json`` (what was exported, from
which data) and a README with the exact ``lm_eval`` commands. The items are the ones ``negkit eval`` asks with
the same ``--data``, ``--split``, ``--limit`` and ``--seed``, in the same order, with the same prompts and answer
strings, so the Harness's per-item predictions and accuracy equal negkit's for the same model:

=====================  =======================================================================================
Harness task           negkit task and protocol
=====================  =======================================================================================
``negkit_tind``        ``tind`` with the chat template (run it with ``--apply_chat_template``): "True" vs "False"
``negkit_tind_plain``  ``tind`` on a model without one (or ``--no-chat-template``): the plain prompt
``negkit_nan_nli``     ``nan-nli``: the three label words scored after negkit's prompt
``negkit_scone``       ``scone``: "Yes" vs "No" after the Thunder-NUBench ScoNe prompt
``negkit_nubench``     ``nubench``: the candidates after the chosen prompt; few-shot from the validation split
=====================  =======================================================================================

TIND stays private: no sentence is written, only item ids and 16-digit hashes; ``utils.py`` reads the encrypted
release in place when the Harness loads the task. The other suites' selected items are written as JSON Lines.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from negkit import __version__
from negkit.errors import NegkitError
from negkit.export.lm_eval_utils import sentence_hash
from negkit.io.atomic import atomic_write_jsonl, atomic_write_text, make_folder
from negkit.run.flags import task_options_for
from negkit.run.record import data_record
from negkit.tasks.base import get_task

#: negkit task -> the Harness task name(s) exported for it.
HARNESS_NAMES: dict[str, tuple[str, ...]] = {
    "tind": ("negkit_tind", "negkit_tind_plain"),
    "nan-nli": ("negkit_nan_nli",),
    "scone": ("negkit_scone",),
    "nubench": ("negkit_nubench",),
}
MANIFEST = "negkit_export.json"
UTILS = "utils.py"


def export_lm_eval(tasks: Sequence[str], out: str | Path, data: str | None = None, split: str = "test",
                   limit: int | float | dict[str, int | float] | None = None, seed: int | None = None,
                   prompt: str | dict[str, str] | None = None, num_fewshot: int | dict[str, int] | None = None,
                   ) -> dict[str, Any]:
    """Write Harness tasks for ``tasks`` into ``out``; return the manifest (also ``out/negkit_export.json``).

    The options mean what they mean for ``negkit eval`` and select the same items; a flag a task does not take
    is an error, as there.
    """
    from negkit.run.options import EvalOptions, task_limit

    if not tasks:
        raise NegkitError(f"no task to export; exportable tasks: {', '.join(HARNESS_NAMES)}")
    unknown = [task for task in tasks if task not in HARNESS_NAMES]
    if unknown:
        raise NegkitError(f"cannot export {', '.join(unknown)} to the LM Evaluation Harness; exportable tasks: "
                          f"{', '.join(HARNESS_NAMES)}")
    options = EvalOptions(data=data, split=split, limit=limit, seed=seed, prompt=prompt, num_fewshot=num_fewshot)
    per_task = task_options_for(list(tasks), options)
    out = Path(out)
    make_folder(out)
    manifest: dict[str, Any] = {"negkit_version": __version__, "command": export_command(tasks, out, options),
                                "split": split, "tasks": {}}
    for name in tasks:
        task = get_task(name, **per_task[name])
        loaded = task.load(data, split, task_limit(limit, name), 0 if seed is None else seed)
        writer = _WRITERS[name]
        manifest["tasks"][name] = {"harness_tasks": list(HARNESS_NAMES[name]), "count": len(loaded.items),
                                   "data": data_record(data, loaded.files), **writer(task, loaded, out, data)}
    atomic_write_text(out / UTILS, resources.files("negkit.export").joinpath("lm_eval_utils.py").read_text("utf-8"))
    atomic_write_text(out / MANIFEST, json.dumps(manifest, indent=1, ensure_ascii=False) + "\n")
    atomic_write_text(out / "README.md", readme(manifest, out))
    return manifest


def export_command(tasks: Sequence[str], out: Path, options: Any) -> str:
    """The ``negkit export lm-eval`` command that writes this export again."""
    from negkit.run.flags import format_per_task

    command = ["negkit", "export", "lm-eval", "--tasks", ",".join(tasks), "--out", str(out.resolve()),
               "--split", options.split]
    if options.data:
        command += ["--data", str(Path(options.data).resolve())]
    for flag, value in (("--limit", options.limit), ("--seed", options.seed), ("--prompt", options.prompt),
                        ("--num-fewshot", options.num_fewshot)):
        if value is not None:
            command += [flag, format_per_task(value)]
    return shlex.join(command)


def _yaml(name: str, loader: str, text: str, choices: str, target: str, delimiter: str, comment: str,
          extra: str = "") -> str:
    return (
        f"# {comment}\n# Written by negkit {__version__} (negkit export lm-eval); see README.md in this folder.\n"
        f"task: {name}\ncustom_dataset: !function utils.{loader}\ntest_split: test\n{extra}"
        f"output_type: multiple_choice\ndoc_to_text: {text}\ndoc_to_choice: {choices}\ndoc_to_target: {target}\n"
        f"target_delimiter: {json.dumps(delimiter)}\n"
        "metric_list:\n  - metric: acc\n    aggregation: mean\n    higher_is_better: true\n"
        f"metadata:\n  version: 1.0\n  negkit_version: {json.dumps(__version__)}\n"
    )


def _write_tind(task: Any, loaded: Any, out: Path, data: str | None) -> dict[str, Any]:
    from negkit.tasks.truth import tind_source

    if task.style != "first-token" or task.fewshot:
        raise NegkitError("only the zero-shot first-token TIND task (tind) is exported")
    source = tind_source(data)
    entry = _tind_source_entry(source, loaded.files)
    ids = [{"item_id": item.item_id, "label": item.label, "sentence_sha256_16": sentence_hash(item.sentence)}
           for item in loaded.items]
    atomic_write_jsonl(out / "negkit_tind.ids.jsonl", ids)
    comment = "TIND ({}): is the sentence True or False? negkit's first-token protocol."
    atomic_write_text(out / "negkit_tind.yaml", _yaml(
        "negkit_tind", "load_tind", "prompt_chat", '["True", "False"]', "gold", "",
        comment.format("chat prompt: run with --apply_chat_template")))
    atomic_write_text(out / "negkit_tind_plain.yaml", _yaml(
        "negkit_tind_plain", "load_tind", "prompt_plain", '["True", "False"]', "gold", "",
        comment.format("plain prompt: for a model without a chat template")))
    return {"ids": "negkit_tind.ids.jsonl", **entry}


def _tind_source_entry(source: Path | str, files: Sequence[Path]) -> dict[str, Any]:
    from negkit.data.tind import is_raw_source

    path = Path(source)
    if not path.exists():
        raise NegkitError(f"TIND from the hub ({source}) cannot be exported: pass --data with a local copy "
                          "(the authors' zip or the HF-layout files)")
    if is_raw_source(path):
        return {"source": str(path.resolve()), "format": "raw", "password": "hitz"}
    if path.is_dir():
        split_files = [file for file in files if file.suffix in (".jsonl", ".json", ".parquet")]
        return {"source": str(path.resolve()), "format": "hf",
                "files": [file.resolve().relative_to(path.resolve()).as_posix() for file in split_files]}
    return {"source": str(path.resolve()), "format": "hf"}


def _write_nli(task: Any, loaded: Any, out: Path, data: str | None) -> dict[str, Any]:
    answers = list(task.answers)
    gold_words = {label: word for word, label in task.answers.items()}
    docs = [{"item_id": item.item_id, "premise": item.premise, "hypothesis": item.hypothesis, "label": item.label,
             "prompt": task.prompt.format(premise=item.premise, hypothesis=item.hypothesis), "choices": answers,
             "gold": answers.index(gold_words[item.label])} for item in loaded.items]
    harness = HARNESS_NAMES[task.name][0]
    atomic_write_jsonl(out / f"{harness}.test.jsonl", docs)
    loader = "load_nan_nli" if task.name == "nan-nli" else "load_scone"
    atomic_write_text(out / f"{harness}.yaml", _yaml(
        harness, loader, "prompt", "choices", "gold", " ",
        f"{task.name}: the answer words {', '.join(answers)} scored after negkit's prompt (arg-max)."))
    return {"docs": {"test": f"{harness}.test.jsonl"}}


def _write_nubench(task: Any, loaded: Any, out: Path, data: str | None) -> dict[str, Any]:
    from negkit.tasks.multiple_choice import FEWSHOT_DELIMITER, FEWSHOT_SPLIT, render_prompt

    def docs(items: Sequence[Any]) -> list[dict[str, Any]]:
        return [{"item_id": item.item_id, "sentence": item.sentence, "choice2_type": item.choice2_type,
                 "candidate_names": list(item.candidate_names), "prompt": render_prompt(task.prompt, item.sentence),
                 "choices": list(item.candidates), "gold": 0} for item in items]

    files = {"test": "negkit_nubench.test.jsonl"}
    atomic_write_jsonl(out / files["test"], docs(loaded.items))
    extra = ""
    if task.num_fewshot:
        files[FEWSHOT_SPLIT] = f"negkit_nubench.{FEWSHOT_SPLIT}.jsonl"
        atomic_write_jsonl(out / files[FEWSHOT_SPLIT], docs(task.pool))
        extra = (f"fewshot_split: {FEWSHOT_SPLIT}\nnum_fewshot: {task.num_fewshot}\n"
                 f"fewshot_delimiter: {json.dumps(FEWSHOT_DELIMITER)}\n")
    atomic_write_text(out / "negkit_nubench.yaml", _yaml(
        "negkit_nubench", "load_nubench", "prompt", "choices", "gold", " ",
        f"Thunder-NUBench, prompt {task.prompt}, {task.num_fewshot}-shot: candidates scored after the prompt.",
        extra).replace("metric_list:\n", "metric_list:\n  - metric: acc_norm\n    aggregation: mean\n"
                       "    higher_is_better: true\n"))
    return {"docs": files, "prompt_id": task.prompt, "num_fewshot": task.num_fewshot, "seeds": list(task.seeds)}


_WRITERS = {"tind": _write_tind, "nan-nli": _write_nli, "scone": _write_nli, "nubench": _write_nubench}


def readme(manifest: dict[str, Any], out: Path) -> str:
    """How to run the exported tasks with the Harness, and which negkit command each one matches."""
    lines = [
        "# negkit tasks for the LM Evaluation Harness",
        "",
        f"Written by `{manifest['command']}` (negkit {manifest['negkit_version']}).",
        "",
        "Run them with the Harness's `hf` backend on the model negkit evaluated (MODEL: its folder or hub name):",
        "",
        "```bash",
    ]
    tasks = manifest["tasks"]
    plain = [name for task in ("nan-nli", "scone", "nubench") if task in tasks for name in tasks[task]["harness_tasks"]]
    base = f"lm_eval --model hf --model_args pretrained=MODEL,dtype=float32 --include_path {shlex.quote(str(out.resolve()))}"
    if "tind" in tasks:
        lines += ["# TIND, chat prompt (negkit's default for a model with a chat template)",
                  f"{base} --tasks negkit_tind --apply_chat_template --log_samples --output_path OUT",
                  "# TIND, plain prompt (a model without a chat template, or negkit eval --no-chat-template)",
                  f"{base} --tasks negkit_tind_plain --log_samples --output_path OUT"]
    if plain:
        lines += ["# negkit's default for these: no chat template", f"{base} --tasks {','.join(plain)} --log_samples --output_path OUT"]
    lines += ["```", ""]
    if "nubench" in tasks and tasks["nubench"]["num_fewshot"]:
        seeds = tasks["nubench"]["seeds"]
        lines += [f"Thunder-NUBench {tasks['nubench']['num_fewshot']}-shot: negkit runs the seeds {seeds}; the Harness "
                  "runs one few-shot seed per command, the fourth number of `--seed`, e.g. "
                  f"`--seed 0,1234,1234,{seeds[0]}` for negkit's run `seed-{seeds[0]}`.", ""]
    lines += [
        "Per-item predictions equal negkit's: the Harness's `acc` prediction is the arg-max of the choices' "
        "log-likelihoods, which is negkit's prediction for these tasks (TIND: True iff P(True) > P(False) on the "
        "first token, when \"True\" and \"False\" are single tokens, as for SmolLM2 and most BPE vocabularies). "
        "With `--apply_chat_template` the Harness also scores the newline that ends the chat template's generation "
        "prompt; it adds the same amount to every choice, so the arg-max is unchanged.",
        "",
        "negkit's `--system-instruction TEXT` is the Harness's `--system_instruction TEXT` with the chat template; "
        "with plain prompts negkit puts a blank line after it, so pass `--system_instruction` with TEXT followed by "
        "two newlines. A tokenizer that adds a BOS token (negkit always adds the tokenizer's special tokens) needs "
        "`add_bos_token=True` in `--model_args`.",
        "",
        "TIND is read at run time from the release negkit read (`NEGKIT_TIND_SOURCE` points at another copy); this "
        "folder holds only item ids and sentence hashes. The Harness's `--log_samples` writes the documents, TIND "
        "sentences included, into its output folder: keep that outside any git repository.",
        "",
    ]
    return "\n".join(lines)
