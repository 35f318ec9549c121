"""MNLI-neg built by ``negkit data get mnli-neg``: MNLI is not redistributed with negkit, so the public MNLI 1.0 zip
is fetched (checked by SHA-256), its ``multinli_1.0_dev_matched.jsonl`` read, and the pairs whose premise carries
a negation cue written as ``DATA/mnli-neg/mnli_neg.jsonl`` (what ``negkit nan-nli mnli-neg FILE --out ...`` writes).

The zip's SHA-256 is the one several public projects pin for this URL (ParlAI's MultiNLI build, NLIDatasets.jl); its
exact size is stated by none of them, so it is not declared."""

from __future__ import annotations

import shutil
import zipfile
from pathlib import Path

from negkit.benchmarks.nan_nli.mnli_neg import extract_mnli_neg, read_mnli, write_mnli_neg
from negkit.errors import InputFormatError
from negkit.kit.data.declared import DataFile

#: Where the zip lies under the inputs root, and the member read.
ZIP_PATH = "mnli-neg/multinli_1.0.zip"
DEV_MATCHED = "multinli_1.0/multinli_1.0_dev_matched.jsonl"
OUTPUT = "mnli-neg/mnli_neg.jsonl"

MNLI_ZIP = DataFile(
    ZIP_PATH,
    "049f507b9e36b1fcb756cfd5aeb3b7a0cfcb84bf023793652987f7e7e0957822",
    None,
    "https://cims.nyu.edu/~sbowman/multinli/multinli_1.0.zip",
    note="MNLI 1.0 (Williams, Nangia, Bowman 2018), about 227 MB; the development set (matched) is read",
)


def build_mnli_neg(inputs: Path, root: Path) -> Path:
    """Write ``ROOT/mnli-neg/mnli_neg.jsonl`` from the MNLI zip under ``inputs``; returns its path."""
    archive = inputs / ZIP_PATH
    member = inputs / "mnli-neg" / Path(DEV_MATCHED).name
    try:
        with zipfile.ZipFile(archive) as opened, opened.open(DEV_MATCHED) as source, open(member, "wb") as out:
            shutil.copyfileobj(source, out)
    except (KeyError, zipfile.BadZipFile) as error:
        raise InputFormatError(archive, None, f"not the MNLI 1.0 zip with {DEV_MATCHED} ({error})") from None
    kept, _ = extract_mnli_neg(read_mnli(member), "premise")
    target = root / OUTPUT
    write_mnli_neg(target, kept)
    return target
