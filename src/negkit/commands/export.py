"""``negkit export lm-eval``: negkit's tasks as LM Evaluation Harness tasks (``lm_eval --include_path DIR``).

The folder written holds one YAML file per Harness task, ``utils.py`` (the data loaders: standard library and
``datasets`` only, see :mod:`negkit.kit.harness.utils`), ``negkit_export.json`` (what was exported, from which
data) and a README with the exact ``lm_eval`` commands. The items are the ones ``negkit eval`` asks with the same
``--data``, ``--split``, ``--limit`` and ``--seed``, in the same order, with the same prompts and answer strings,
so the Harness's per-item predictions and accuracy equal negkit's for the same model.

Which tasks can be exported, under which Harness names, and how, is each suite's
:attr:`negkit.kit.suites.SuiteDescription.harness` (:class:`negkit.kit.suites.HarnessExport`): a suite's main task is
exported under the names it gives (``negkit export lm-eval --tasks TASK,...``), and the suite's other tasks
named in :attr:`negkit.kit.suites.SuiteDescription.task_harness`. A suite's name (or alias) stands for its exported
tasks, as a suite's name stands for its tasks in ``negkit eval`` (``--tasks negnli``: ``negnli-mnli``,
``negnli-snli`` and ``negnli-rte``), see :func:`export_task_names`.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from negkit import __version__
from negkit.commands.eval.flags import task_options_for
from negkit.commands.eval.options import EvalOptions, task_limit
from negkit.commands.eval.record import data_record
from negkit.errors import NegkitError
from negkit.io.atomic import atomic_write_text, make_folder
from negkit.kit.arguments import format_per_task
from negkit.kit.suites import HarnessExport, all_suites, get_task_spec, registered_tasks

MANIFEST = "negkit_export.json"
UTILS = "utils.py"


def exportable() -> dict[str, HarnessExport]:
    """negkit task -> how it is exported (the main task of every suite that has a Harness export, then the
    suite's other exported tasks), in the suites' order."""
    exports: dict[str, HarnessExport] = {}
    for suite in all_suites():
        if suite.harness is not None:
            exports[suite.main_task] = suite.harness
        exports.update(suite.task_harness)
    return exports


def harness_names() -> dict[str, tuple[str, ...]]:
    """negkit task -> the Harness task name(s) exported for it (read from each task's spec, without building it)."""
    return {task: get_task_spec(task).harness_names for task in exportable()}


def export_task_names(names: Sequence[str]) -> list[str]:
    """``names`` with each suite name (or alias) that is not itself a task replaced by that suite's tasks that
    have a Harness export, in the suite's order (``negnli`` -> ``negnli-mnli``, ``negnli-snli``, ``negnli-rte``;
    ``thunder-nubench`` -> ``nubench``); a task named twice is exported once. Other names stay as they are (an
    unknown or unexportable task is refused by :func:`export_lm_eval`); a suite none of whose tasks has an export
    is an error naming it."""
    exports = exportable()
    tasks = set(registered_tasks()) | set(exports)
    expanded: list[str] = []
    for name in names:
        suite = None if name in tasks else next((s for s in all_suites() if name in s.names), None)
        if suite is None:
            chosen = [name]
        else:
            chosen = [task for task in suite.task_names if task in exports]
            if not chosen:
                why = f" ({suite.harness_none})" if suite.harness_none else ""
                raise NegkitError(
                    f"suite {name} has no task exported to the LM Evaluation Harness{why}; exportable "
                    f"tasks: {', '.join(exports)}"
                )
        expanded += [task for task in chosen if task not in expanded]
    return expanded


def export_lm_eval(
    tasks: Sequence[str],
    out: str | Path,
    data: str | None = None,
    split: str = "test",
    limit: int | float | dict[str, int | float] | None = None,
    seed: int | None = None,
    prompt: str | dict[str, str] | None = None,
    num_fewshot: int | dict[str, int] | None = None,
) -> dict[str, Any]:
    """Write Harness tasks for ``tasks`` into ``out``; return the manifest (also ``out/negkit_export.json``).

    The options mean what they mean for ``negkit eval`` and select the same items; a flag a task does not take
    is an error, as there. A suite's name stands for its exported tasks (:func:`export_task_names`).
    """
    exports = exportable()
    tasks = export_task_names(tasks)
    if not tasks:
        raise NegkitError(f"no task to export; exportable tasks: {', '.join(exports)}")
    unknown = [task for task in tasks if task not in exports]
    if unknown:
        specs = [get_task_spec(task) for task in unknown if task in registered_tasks()]
        why = "; ".join(f"{spec.name}: {spec.harness_none}" for spec in specs if spec.harness_none)
        raise NegkitError(
            f"cannot export {', '.join(unknown)} to the LM Evaluation Harness"
            f"{f' ({why})' if why else ''}; exportable tasks: {', '.join(exports)}"
        )
    options = EvalOptions(data=data, split=split, limit=limit, seed=seed, prompt=prompt, num_fewshot=num_fewshot)
    per_task = task_options_for(list(tasks), options)
    out = Path(out)
    make_folder(out)
    manifest: dict[str, Any] = {
        "negkit_version": __version__,
        "command": export_command(tasks, out, options),
        "split": split,
        "tasks": {},
    }
    for name in tasks:
        task = per_task[name].task
        loaded = task.load(data, split, task_limit(limit, name), 0 if seed is None else seed)
        export = exports[name]
        manifest["tasks"][name] = {
            "harness_tasks": list(export.names),
            "count": len(loaded.items),
            "data": data_record(data, loaded.files),
            **export.write(task, loaded, out, data, export.names),
        }
    atomic_write_text(out / UTILS, utils_text([exports[name] for name in tasks]))
    atomic_write_text(out / MANIFEST, json.dumps(manifest, indent=1, ensure_ascii=False) + "\n")
    atomic_write_text(out / "README.md", readme(manifest, out))
    return manifest


def utils_text(exports: Sequence[HarnessExport]) -> str:
    """``utils.py``: the shared loaders, one loader per exported task's documents, and the suites' own code."""
    text = resources.files("negkit.kit.harness").joinpath("utils.py").read_text("utf-8").rstrip() + "\n"
    for export in exports:
        for loader, key in export.loaders.items():
            if key is not None:
                text += (
                    f"\n\ndef {loader}(**_options: object) -> object:\n"
                    f'    """The documents negkit selected for {key} (``custom_dataset`` of '
                    f'{", ".join(export.names)})."""\n    return _load_docs({key!r})\n'
                )
        if export.utils_source:
            text += "\n\n" + export.utils_source.rstrip() + "\n"
    return text


def export_command(tasks: Sequence[str], out: Path, options: Any) -> str:
    """The ``negkit export lm-eval`` command that writes this export again."""
    command = [
        "negkit",
        "export",
        "lm-eval",
        "--tasks",
        ",".join(tasks),
        "--out",
        str(out.resolve()),
        "--split",
        options.split,
    ]
    if options.data:
        command += ["--data", str(Path(options.data).resolve())]
    for flag, value in (
        ("--limit", options.limit),
        ("--seed", options.seed),
        ("--prompt", options.prompt),
        ("--num-fewshot", options.num_fewshot),
    ):
        if value is not None:
            command += [flag, format_per_task(value)]
    return shlex.join(command)


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
    exports = exportable()
    tasks = {task: manifest["tasks"][task] for task in exports if task in manifest["tasks"]}  # the suites' order
    base = f"lm_eval --model hf --model_args pretrained=MODEL,dtype=float32 --include_path {shlex.quote(str(out.resolve()))}"
    plain = []
    for task, entry in tasks.items():
        readme = exports[task].readme
        if readme is not None:
            lines += readme(base, entry)
        else:
            plain += entry["harness_tasks"]
    if plain:
        lines += [
            "# negkit's default for these: no chat template",
            f"{base} --tasks {','.join(plain)} --log_samples --output_path OUT",
        ]
    lines += ["```", ""]
    for task, entry in tasks.items():
        notes = exports[task].notes
        if notes is not None:
            lines += notes(entry)
    lines += [
        "Per-item predictions equal negkit's: the Harness's `acc` prediction is the arg-max of the choices' "
        "log-likelihoods, which is negkit's prediction for these tasks (TIND: True iff P(True) > P(False) on the "
        'first token, when "True" and "False" are single tokens, as for SmolLM2 and most BPE vocabularies). '
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
