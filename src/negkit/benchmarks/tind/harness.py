"""TIND for the LM Evaluation Harness (``negkit export lm-eval --tasks tind``): item ids and sentence hashes only
(the Harness reads the encrypted release in place through the loader of :mod:`negkit.benchmarks.tind.harness_utils`),
two task files: ``negkit_tind`` (the chat prompt) and ``negkit_tind_plain`` (the plain prompt)."""

from __future__ import annotations

from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from negkit.benchmarks.tind.data import is_raw_source
from negkit.benchmarks.tind.harness_utils import MARKER, sentence_hash
from negkit.benchmarks.tind.task import tind_source
from negkit.errors import NegkitError
from negkit.io.atomic import atomic_write_jsonl, atomic_write_text
from negkit.kit.harness.layout import harness_task_yaml
from negkit.kit.tasks.base import TaskData

CHAT, PLAIN = "negkit_tind", "negkit_tind_plain"
IDS_FILE = "negkit_tind.ids.jsonl"


def write_harness_task(
    task: Any, loaded: TaskData, out: Path, data: str | None, names: tuple[str, ...]
) -> dict[str, Any]:
    """The ids and hashes of the selected sentences and the two task files."""
    if task.style != "first-token" or task.fewshot:
        raise NegkitError("only the zero-shot first-token TIND task (tind) is exported")
    source = tind_source(data)
    entry = _source_entry(source, loaded.files)
    ids = [
        {"item_id": item.item_id, "label": item.label, "sentence_sha256_16": sentence_hash(item.sentence)}
        for item in loaded.items
    ]
    atomic_write_jsonl(out / IDS_FILE, ids)
    comment = "TIND ({}): is the sentence True or False? negkit's first-token protocol."
    atomic_write_text(
        out / f"{CHAT}.yaml",
        harness_task_yaml(
            CHAT,
            "load_tind",
            "prompt_chat",
            '["True", "False"]',
            "gold",
            "",
            comment.format("chat prompt: run with --apply_chat_template"),
        ),
    )
    atomic_write_text(
        out / f"{PLAIN}.yaml",
        harness_task_yaml(
            PLAIN,
            "load_tind",
            "prompt_plain",
            '["True", "False"]',
            "gold",
            "",
            comment.format("plain prompt: for a model without a chat template"),
        ),
    )
    return {"ids": IDS_FILE, **entry}


def _source_entry(source: Path | str, files: Sequence[Path]) -> dict[str, Any]:
    path = Path(source)
    if not path.exists():
        raise NegkitError(
            f"TIND from the hub ({source}) cannot be exported: pass --data with a local copy "
            "(the authors' zip or the HF-layout files)"
        )
    if is_raw_source(path):
        return {"source": str(path.resolve()), "format": "raw", "password": "hitz"}
    if path.is_dir():
        split_files = [file for file in files if file.suffix in (".jsonl", ".json", ".parquet")]
        return {
            "source": str(path.resolve()),
            "format": "hf",
            "files": [file.resolve().relative_to(path.resolve()).as_posix() for file in split_files],
        }
    return {"source": str(path.resolve()), "format": "hf"}


def readme_commands(base: str, entry: dict[str, Any]) -> list[str]:
    """The README's two commands: the chat prompt and the plain prompt."""
    return [
        "# TIND, chat prompt (negkit's default for a model with a chat template)",
        f"{base} --tasks {CHAT} --apply_chat_template --log_samples --output_path OUT",
        "# TIND, plain prompt (a model without a chat template, or negkit eval --no-chat-template)",
        f"{base} --tasks {PLAIN} --log_samples --output_path OUT",
    ]


def utils_source() -> str:
    """The loader's code, appended to the export's ``utils.py``."""
    text = resources.files("negkit.benchmarks.tind").joinpath("harness_utils.py").read_text(encoding="utf-8")
    return text[text.index(MARKER) :]
