"""The reproduction record of a ``negkit eval`` run (HELM's run-spec idea): everything needed to run it again
and to know what exactly was run, written into every results file.

:func:`run_record` gathers the run-wide part: the exact command with every option resolved, negkit's version and
git commit, Python and library versions, device, dtype and batch sizes, the date (UTC). :func:`prompt_record`
renders a task's exact prompt template for the model (with the system text a chat template inserts on its
own), :func:`data_record` hashes the data files under their paths relative to the data root, and
:func:`merge_timings` keeps the timings of earlier invocations when a run is resumed.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import math
import platform
import shlex
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, is_dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from negkit import __version__
from negkit.io.atomic import atomic_write_json
from negkit.kit.data.locate import candidate_roots
from negkit.kit.tasks.adapter import adapt
from negkit.models.conversation import conversation_template_of
from negkit.models.fingerprints import file_sha256
from negkit.models.model_args import redact_command_line, redact_model_args
from negkit.runs.files import task_file

#: Libraries whose versions go into the record when installed (the first three always are, or None).
PACKAGES: tuple[str, ...] = (
    "torch",
    "transformers",
    "tokenizers",
    "peft",
    "accelerate",
    "bitsandbytes",
    "vllm",
    "safetensors",
    "numpy",
    "datasets",
    "gguf",
)
_USER_MARK = "\u27e6negkit-user-text\u27e7"
_SYSTEM_MARK = "\u27e6negkit-system-text\u27e7"


def utc_now() -> str:
    """The current time in UTC, ISO 8601 with a ``Z``, to the second."""
    return datetime.now(timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def package_versions(names: Sequence[str] = PACKAGES) -> dict[str, str | None]:
    """Installed version of each library (``torch``, ``transformers`` and ``tokenizers`` always listed, None when
    absent; the others only when installed)."""
    versions: dict[str, str | None] = {}
    for name in names:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            if name in ("torch", "transformers", "tokenizers"):
                versions[name] = None
    return versions


def negkit_source() -> dict[str, Any]:
    """negkit's version, and the git commit of its source when negkit runs from a git checkout of itself
    (``commit`` None otherwise, e.g. installed from a wheel); ``dirty`` says whether tracked files differ."""
    package = Path(__file__).resolve().parent
    entry: dict[str, Any] = {"version": __version__, "commit": None, "dirty": None}
    try:
        top = Path(_git(package, "rev-parse", "--show-toplevel"))
        pyproject = top / "pyproject.toml"
        if not pyproject.is_file() or 'name = "negkit"' not in pyproject.read_text(encoding="utf-8"):
            return entry  # negkit installed inside some other project's checkout
        entry["commit"] = _git(package, "rev-parse", "HEAD")
        entry["dirty"] = bool(_git(top, "status", "--porcelain", "--untracked-files=no", "--", "src"))
    except (OSError, subprocess.SubprocessError, ValueError):
        pass
    return entry


def _git(folder: Path, *arguments: str) -> str:
    completed = subprocess.run(
        ["git", "-C", str(folder), *arguments], capture_output=True, text=True, timeout=10, check=True
    )
    return completed.stdout.strip()


def environment() -> dict[str, Any]:
    """negkit (version, commit), Python, the platform and the library versions."""
    return {
        "negkit": negkit_source(),
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "machine": platform.machine(),
        "packages": package_versions(),
    }


def model_record(model: Any, dtype: str, batch_size: int | None) -> dict[str, Any]:
    """How the model ran: what can be read from the model object (device, dtype, requested batch size, token
    budget), overridden by the backend's own ``load_info`` (device, quantization, batch sizes used, adapter, ...)."""
    record: dict[str, Any] = {"device": None, "dtype": dtype, "batch_size": batch_size or "auto"}
    parameters = getattr(getattr(model, "model", None), "parameters", None)
    if callable(parameters):
        first = next(iter(parameters()), None)
        record["device"] = str(first.device) if first is not None else None
    if getattr(model, "token_budget", None):
        record["token_budget"] = model.token_budget
    record.update(dict(getattr(model, "load_info", {}) or {}))
    return record


def inserted_system_text(model: Any) -> str | None:
    """The system message the model's chat template inserts when the prompt has none (SmolLM2's "You are a
    helpful AI assistant named SmolLM, ..."); ``""`` when it inserts none, None without a chat template."""
    if not getattr(model, "has_chat_template", False):
        return None
    user_only = model.apply_chat_template([{"role": "user", "content": _USER_MARK}])
    try:
        with_system = model.apply_chat_template(
            [{"role": "system", "content": _SYSTEM_MARK}, {"role": "user", "content": _USER_MARK}]
        )
    except Exception:  # a template that refuses system messages inserts none either
        return ""
    before_user = user_only.split(_USER_MARK, 1)[0]
    if _SYSTEM_MARK not in with_system or _USER_MARK not in with_system:
        return ""
    opening, _, rest = with_system.partition(_SYSTEM_MARK)
    between = rest.split(_USER_MARK, 1)[0]
    if (
        before_user.startswith(opening)
        and before_user.endswith(between)
        and len(before_user) > len(opening) + len(between)
    ):
        return before_user[len(opening) : len(before_user) - len(between)]
    return ""


def chat_template_text(model: Any) -> str | None:
    """The chat template the model's prompts are rendered with: a named conversation template's definition (JSON),
    else the Jinja source of the model's tokenizer's template, when it has one."""
    named = conversation_template_of(model)
    if named is not None:
        return json.dumps(named.definition(), sort_keys=True)
    template = getattr(getattr(model, "tokenizer", None), "chat_template", None)
    return template if isinstance(template, str) else None


def applies_chat_template(task: Any, model: Any) -> bool:
    """Whether ``task`` renders its prompts for ``model`` with the chat template."""
    return adapt(task).uses_chat(model)


def prompt_record(task: Any, model: Any) -> dict[str, Any]:
    """The exact prompt template ``task`` sends to ``model`` (placeholders for the item's fields) and what the
    chat template adds: the system text it inserts on its own, and the template's sha256."""
    template = adapt(task).prompt_template(model)
    uses_chat = applies_chat_template(task, model) if template is not None else None
    record: dict[str, Any] = {
        "template": template,
        "chat_template_applied": uses_chat,
        "system_instruction": adapt(task).system_instruction,
    }
    if uses_chat:
        named = conversation_template_of(model)
        record["conversation_template"] = named.name if named is not None else None
        # None when a system instruction replaces it, or when the template is applied out of sight (a server)
        source = chat_template_text(model)
        record["inserted_system_text"] = (
            inserted_system_text(model) if source and not record["system_instruction"] else None
        )
        record["chat_template_sha256"] = _sha256(source) if source else None
    return record


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def data_root(data: str | Path | None, files: Sequence[Path]) -> Path | None:
    """The data root the files of a task were found under: ``--data`` (or its parent when it is a file or a
    data set folder), else the first of negkit's candidate roots that holds them."""
    resolved = [Path(file).resolve() for file in files]
    roots = [Path(root).resolve() for root in candidate_roots(data) if Path(root).is_dir()]
    if data is not None and Path(data).exists():
        given = Path(data).resolve()
        roots = [given if given.is_dir() else given.parent, given.parent, *roots]
    for root in roots:
        if resolved and all(file.is_relative_to(root) for file in resolved):
            return root
    return None


def data_record(data: str | Path | None, files: Sequence[Path | str]) -> dict[str, Any]:
    """``{"root": ..., "files": {path relative to the root: {"sha256", "bytes"}}}``: the data root and every file
    read, keyed by its relative path (two files of the same name in different folders stay apart)."""
    paths = [Path(file) for file in files]
    existing = [path for path in paths if path.is_file()]
    root = data_root(data, existing)
    entries: dict[str, Any] = {}
    for path in paths:
        if not path.is_file():
            entries[str(path)] = {"sha256": None, "bytes": None}  # a hub name
            continue
        key = path.resolve().relative_to(root).as_posix() if root else str(path.resolve())
        entries[key] = {"sha256": file_sha256(path), "bytes": path.stat().st_size}
    return {"root": str(root) if root else None, "files": entries}


def merge_timings(previous: dict[str, Any] | None, current: dict[str, Any]) -> dict[str, Any]:
    """This invocation's timings, with every earlier invocation's kept under ``runs`` (oldest first) when the
    same task is resumed or rerun in the same output folder."""
    runs: list[dict[str, Any]] = []
    if isinstance(previous, dict):
        earlier = previous.get("runs")
        if isinstance(earlier, list):
            runs = [run for run in earlier if isinstance(run, dict)]
        elif previous:  # a results file written before runs were kept
            runs = [{key: value for key, value in previous.items() if key != "runs"}]
    runs.append(dict(current))
    return {**current, "runs": runs, "total_score_s": round(sum(float(run.get("score_s") or 0) for run in runs), 3)}


class TimingLog:
    """The timings of one task in one output folder, kept across invocations.

    While a task scores, its timings so far are saved every few seconds in ``TASK.timings.json`` (atomically);
    the next invocation in the same folder finds them (a killed run's time is kept, marked ``interrupted``),
    adds them to the runs recorded in ``TASK.results.json``, and removes the file once its results are written.
    """

    def __init__(self, base: Path, model_key: str | None = None, every_seconds: float = 2.0) -> None:
        #: The fingerprint key of the model timed: an interrupted run of another model is not this run's history.
        self.model_key = model_key
        self.results = task_file(base, ".results.json")
        self.partial = task_file(base, ".timings.json")
        self.every_seconds = every_seconds
        self._last = 0.0

    def previous(self) -> dict[str, Any] | None:
        """Earlier invocations: the runs of the last results file, then an interrupted run's timings, if any."""
        previous = _read_json(self.results)
        timings = previous.get("timings") if isinstance(previous, dict) else None
        interrupted = _read_json(self.partial)
        if isinstance(interrupted, dict) and interrupted.get("model_key", self.model_key) != self.model_key:
            interrupted = None  # a killed run of another model: its time is not this model's
        if not isinstance(interrupted, dict):
            return timings if isinstance(timings, dict) else None
        runs = merge_timings(timings if isinstance(timings, dict) else None, interrupted)["runs"]
        return {"runs": runs}

    def progress(self, timings: dict[str, Any], started: float, done: int, force: bool = False) -> None:
        """Save this invocation's timings so far (at most every few seconds unless ``force``)."""
        now = time.perf_counter()
        if not force and now - self._last < self.every_seconds:
            return
        self._last = now
        atomic_write_json(
            self.partial,
            {
                **timings,
                "score_s": round(now - started, 3),
                "requests_done": done,
                "interrupted": True,
                "model_key": self.model_key,
            },
        )

    def finish(self) -> None:
        """The results file now holds this invocation's timings: the interim file goes."""
        self.partial.unlink(missing_ok=True)


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def resolved_options(options: Any) -> dict[str, Any]:
    """Every field of an options dataclass with its effective value, JSON-ready."""
    values = asdict(options) if is_dataclass(options) and not isinstance(options, type) else dict(vars(options))
    if isinstance(values.get("model_args"), dict):
        values["model_args"] = redact_model_args(values["model_args"])  # no secret is ever written
    if values.get("gen_kwargs") is None:  # recorded when given (the run-file layout is unchanged without it)
        values.pop("gen_kwargs", None)
    return {key: _jsonable(value) for key, value in values.items() if key not in ("command", "progress", "start_over")}


def _jsonable(value: Any) -> Any:
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, dict):
        return {str(key): _jsonable(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(item) for item in value]
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)  # e.g. --wait-lock without a limit: strict JSON has no Infinity
    return value


def run_record(
    spec: str, tasks: Sequence[str], options: Any, command: Sequence[str], model: Any, dtype: str, started: float
) -> dict[str, Any]:
    """The run-wide reproduction record (the per-task parts are added by :func:`negkit.commands.eval.evaluate.evaluate`)."""
    return {
        "command": shlex.join(redact_command_line(command)),
        "argv": redact_command_line(sys.argv),
        "model_spec": spec,
        "tasks": list(tasks),
        "options": {**resolved_options(options), "dtype": dtype},
        "environment": environment(),
        "model": model_record(model, dtype, getattr(options, "batch_size", None)),
        "chat_template": chat_template_text(model),
        "date_utc": utc_now(),
        "unix_time": round(started, 3),
        "cwd": str(Path.cwd()),
    }


def elapsed(since: float) -> float:
    """Seconds since ``since`` (``time.time()``), rounded to the millisecond."""
    return round(time.time() - since, 3)


def attach_prompts(records: Sequence[dict[str, Any]], per_item: Sequence[Sequence[Any]]) -> None:
    """Put the exact context each item was asked with into its per-sample record: ``prompt`` (one context), or
    ``runs[RUN]["prompt"]`` when the item was asked once per run (few-shot seeds). Classifier pairs have none."""
    for record, requests in zip(records, per_item):
        contexts = list(dict.fromkeys(request.context for request in requests if hasattr(request, "context")))
        if not contexts:
            continue
        runs = record.get("runs")
        if isinstance(runs, dict) and len(runs) > 1 and len(contexts) == len(runs):
            for run, context in zip(runs.values(), contexts):
                run.setdefault("prompt", context)
        else:
            record.setdefault("prompt", contexts[0] if len(contexts) == 1 else contexts)
