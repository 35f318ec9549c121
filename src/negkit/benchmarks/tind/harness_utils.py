"""TIND's loader for the LM Evaluation Harness export, appended to the export's ``utils.py`` (everything below the
marker line is copied; it needs only the standard library, the shared part of ``utils.py`` above it, and
``pyzipper`` / ``pyarrow`` for the files that need them).

TIND stays encrypted: the export holds only item ids and short hashes of the sentences; the sentences are read
at run time from the release negkit read (the authors' password-protected zip, read in place, or the HF-layout
files), and every sentence is checked against its hash. ``NEGKIT_TIND_SOURCE`` points at another copy of the
same release; ``NEGKIT_TIND_PASSWORD`` gives the zip's password (default: the one the authors publish).
"""

from __future__ import annotations

from negkit.kit.harness.utils import HERE, _dataset, _manifest, _read_jsonl  # above the marker in utils.py

MARKER = "# --- negkit export: copied into utils.py from here ---"

# --- negkit export: copied into utils.py from here ---
import hashlib  # noqa: E402
import os  # noqa: E402
import re  # noqa: E402
import zipfile  # noqa: E402
from pathlib import Path  # noqa: E402

TIND_TASK = "tind"
TIND_QUESTION = "Is the following statement True or False?"
TIND_CHAT_QUESTION = "Is the following statement True or False? Answer only True or False."
_PATTERN_FILE = re.compile(r"#(\d{2})\.Pattern\.txt")
_HEADER = re.compile(r"% Test (\d+)")


def sentence_hash(sentence: str) -> str:
    """The short hash the export keeps of a TIND sentence (the first 16 hex digits of its SHA-256)."""
    return hashlib.sha256(sentence.encode("utf-8")).hexdigest()[:16]


def load_tind(**_options: object) -> object:
    """The exported TIND items, read at run time from the release (``custom_dataset`` of ``negkit_tind*``)."""
    entry = _manifest()["tasks"][TIND_TASK]
    source = os.environ.get("NEGKIT_TIND_SOURCE") or entry["source"]
    password = os.environ.get("NEGKIT_TIND_PASSWORD", entry.get("password", "hitz"))
    if entry["format"] == "raw":
        sentences = _raw_sentences(Path(source), password)
    else:
        sentences = _hf_sentences(
            [Path(source) / name if Path(source).is_dir() else Path(source) for name in entry["files"]]
            if entry.get("files")
            else [Path(source)]
        )
    rows = []
    for line in _read_jsonl(HERE / entry["ids"]):
        item_id = line["item_id"]
        if item_id not in sentences:
            raise ValueError(f"TIND item {item_id} is not in {source}: is it the release negkit exported from?")
        sentence, label = sentences[item_id]
        if sentence_hash(sentence) != line["sentence_sha256_16"] or label != line["label"]:
            raise ValueError(f"TIND item {item_id} of {source} differs from the one negkit exported")
        text = sentence.strip()
        rows.append(
            {
                "item_id": item_id,
                "label": label,
                "gold": 0 if label else 1,
                "prompt_chat": f"{TIND_CHAT_QUESTION} {text}",
                "prompt_plain": f"{TIND_QUESTION} {text}",
            }
        )
    return _dataset({"test": rows})


def _raw_texts(path: Path, password: str) -> dict:
    """Pattern number -> text of its ``#NN.Pattern.txt`` (a zip read in place, a folder, or one file)."""
    texts = {}
    if path.is_file() and zipfile.is_zipfile(path):
        archive = zipfile.ZipFile(path)
        if any(info.compress_type == 99 for info in archive.infolist()):  # AES, as in the authors' own zip
            import pyzipper  # optional: only the authors' AES-encrypted zip needs it

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
                header = _HEADER.match(line)
                assert header is not None, f"not a group header: {line!r}"
                group, index = int(header.group(1)), 0
                continue
            fields = line.split("\t")
            sentences[f"p{pattern:02d}-g{group:06d}-s{index:04d}"] = (fields[6], fields[5] == "T")
            index += 1
    return sentences


def _hf_sentences(files: list[Path]) -> dict[str, tuple[str, bool]]:
    """Item id -> (sentence, label) of HF-layout files, numbered within each group across the files in order."""
    sentences: dict[str, tuple[str, bool]] = {}
    counts: dict[tuple[int, int], int] = {}
    for file in files:
        if file.suffix == ".parquet":
            import pyarrow.parquet  # optional: only parquet files need it

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
