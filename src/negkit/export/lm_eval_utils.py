"""Data loaders of the negkit tasks exported for the LM Evaluation Harness (``negkit export lm-eval``).

This file is copied next to the task YAML files as ``utils.py``; the Harness imports it from there (``!function
utils.load_...``). It needs only the Python standard library and ``datasets`` (which the Harness installs), not
negkit. ``negkit_export.json`` beside it says which items each task asks, in negkit's order.

TIND stays encrypted: the export holds only item ids and short hashes of the sentences; the sentences are read
at run time from the release negkit read (the authors' password-protected zip, read in place, or the HF-layout
files), and every sentence is checked against its hash. ``NEGKIT_TIND_SOURCE`` points at another copy of the
same release; ``NEGKIT_TIND_PASSWORD`` gives the zip's password (default: the one the authors publish).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
MANIFEST = HERE / "negkit_export.json"
TIND_QUESTION = "Is the following statement True or False?"
TIND_CHAT_QUESTION = "Is the following statement True or False? Answer only True or False."
_PATTERN_FILE = re.compile(r"#(\d{2})\.Pattern\.txt")
_HEADER = re.compile(r"% Test (\d+)")


def sentence_hash(sentence: str) -> str:
    """The short hash the export keeps of a TIND sentence (the first 16 hex digits of its SHA-256)."""
    return hashlib.sha256(sentence.encode("utf-8")).hexdigest()[:16]


def _manifest() -> dict:
    return json.loads(MANIFEST.read_text(encoding="utf-8"))


def _read_jsonl(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def _dataset(rows_by_split: dict) -> object:
    import datasets

    return datasets.DatasetDict({split: datasets.Dataset.from_list(rows) for split, rows in rows_by_split.items()})


def _load_docs(task: str) -> object:
    entry = _manifest()["tasks"][task]
    return _dataset({split: _read_jsonl(HERE / name) for split, name in entry["docs"].items()})


def load_nan_nli(**_options: object) -> object:
    """NaN-NLI pairs, as negkit selected them (``custom_dataset`` of ``negkit_nan_nli``)."""
    return _load_docs("nan-nli")


def load_scone(**_options: object) -> object:
    """ScoNe-NLI pairs, as negkit selected them (``custom_dataset`` of ``negkit_scone``)."""
    return _load_docs("scone")


def load_nubench(**_options: object) -> object:
    """Thunder-NUBench items (and the validation pool for few-shot), as negkit selected them."""
    return _load_docs("nubench")


def load_tind(**_options: object) -> object:
    """The exported TIND items, read at run time from the release (``custom_dataset`` of ``negkit_tind*``)."""
    entry = _manifest()["tasks"]["tind"]
    source = os.environ.get("NEGKIT_TIND_SOURCE") or entry["source"]
    password = os.environ.get("NEGKIT_TIND_PASSWORD", entry.get("password", "hitz"))
    if entry["format"] == "raw":
        sentences = _raw_sentences(Path(source), password)
    else:
        sentences = _hf_sentences([Path(source) / name if Path(source).is_dir() else Path(source)
                                   for name in entry["files"]] if entry.get("files") else [Path(source)])
    rows = []
    for line in _read_jsonl(HERE / entry["ids"]):
        item_id = line["item_id"]
        if item_id not in sentences:
            raise ValueError(f"TIND item {item_id} is not in {source}: is it the release negkit exported from?")
        sentence, label = sentences[item_id]
        if sentence_hash(sentence) != line["sentence_sha256_16"] or label != line["label"]:
            raise ValueError(f"TIND item {item_id} of {source} differs from the one negkit exported")
        text = sentence.strip()
        rows.append({"item_id": item_id, "label": label, "gold": 0 if label else 1,
                     "prompt_chat": f"{TIND_CHAT_QUESTION} {text}", "prompt_plain": f"{TIND_QUESTION} {text}"})
    return _dataset({"test": rows})


def _raw_texts(path: Path, password: str) -> dict:
    """Pattern number -> text of its ``#NN.Pattern.txt`` (a zip read in place, a folder, or one file)."""
    texts = {}
    if path.is_file() and zipfile.is_zipfile(path):
        archive = zipfile.ZipFile(path)
        if any(info.compress_type == 99 for info in archive.infolist()):  # AES, as in the authors' own zip
            import pyzipper

            archive = pyzipper.AESZipFile(path)
        archive.setpassword(password.encode("utf-8"))
        for name in archive.namelist():
            match = _PATTERN_FILE.fullmatch(name.rsplit("/", 1)[-1])
            if match:
                texts[int(match.group(1))] = archive.read(name).decode("utf-8")
    else:
        files = [path] if path.is_file() else sorted(path.rglob("#*.Pattern.txt"))
        for file in files:
            match = _PATTERN_FILE.fullmatch(file.name)
            if match:
                texts[int(match.group(1))] = file.read_text(encoding="utf-8")
    if not texts:
        raise FileNotFoundError(f"no TIND #NN.Pattern.txt file in {path}")
    return texts


def _raw_sentences(path: Path, password: str) -> dict:
    """Item id -> (sentence, label) of a raw release, ids as negkit makes them (pattern, group, position)."""
    sentences = {}
    for pattern, text in sorted(_raw_texts(path, password).items()):
        group, index = None, 0
        for line in text.split("\n"):
            if not line:
                continue
            if line.startswith("%"):
                group, index = int(_HEADER.match(line).group(1)), 0
                continue
            fields = line.split("\t")
            sentences[f"p{pattern:02d}-g{group:06d}-s{index:04d}"] = (fields[6], fields[5] == "T")
            index += 1
    return sentences


def _hf_sentences(files: list) -> dict:
    """Item id -> (sentence, label) of HF-layout files, numbered within each group across the files in order."""
    sentences, counts = {}, {}
    for file in files:
        if file.suffix == ".parquet":
            import pyarrow.parquet

            records = pyarrow.parquet.read_table(file).to_pylist()
        else:
            records = _read_jsonl(file)
        for record in records:
            key = (int(record["pattern_id"]), int(record["test_id"]))
            index = counts.get(key, 0)
            counts[key] = index + 1
            label = record["label"]
            label = label.strip().lower() == "true" if isinstance(label, str) else bool(label)
            sentences[f"p{key[0]:02d}-g{key[1]:06d}-s{index:04d}"] = (record["sentence"], label)
    return sentences
