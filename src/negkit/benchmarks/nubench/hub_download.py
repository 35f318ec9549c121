"""``negkit data get thunder-nubench``: the gated hub data set brought into a data root with ``huggingface_hub``.

The data set (:data:`negkit.benchmarks.nubench.data.HUB_ID`) is gated: its licence must be accepted on the hub by
a logged-in user, and the download needs that user's token (``HF_TOKEN``, or ``huggingface-cli login``). The hub's
current commit is resolved first and the snapshot taken at that commit; each configuration's split files
(``CONFIG/SPLIT.jsonl``, ``CONFIG/SPLIT-00000-of-00001.parquet``, ...) are rewritten as
``DATA/thunder-nubench/CONFIG/SPLIT.jsonl``, the layout negkit reads, and ``SOURCE.json`` records the hub commit.
``HF_ENDPOINT`` chooses another hub (a mirror, or a local stand-in in the tests).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from negkit.benchmarks.nubench.data import DATA_FOLDER, HUB_ID, SPLITS
from negkit.errors import NegkitError
from negkit.io.atomic import atomic_write_json, atomic_write_text
from negkit.io.hub import endpoint, offline_by_setting
from negkit.io.textfiles import iter_json_objects, iter_parquet

_SUFFIXES = (".jsonl", ".json", ".parquet")


def _gated_message(reason: str) -> str:
    return (
        f"Thunder-NUBench ({HUB_ID}) is gated on the Hugging Face hub ({reason}): accept its licence at "
        f"{endpoint()}/datasets/{HUB_ID} while logged in, then pass your token: "
        "HF_TOKEN=hf_... negkit data get thunder-nubench (or huggingface-cli login first)"
    )


def _split_file(snapshot: Path, config: str, split: str) -> Path | None:
    candidates = sorted(
        path
        for path in snapshot.rglob("*")
        if path.is_file()
        and config in path.relative_to(snapshot).parts[:-1]
        and path.suffix in _SUFFIXES
        and (path.stem == split or path.stem.startswith(f"{split}-"))
    )
    return candidates[0] if candidates else None


def _records(path: Path) -> list[dict]:
    rows = iter_parquet(path) if path.suffix == ".parquet" else iter_json_objects(path)
    return [record for _, record in rows]


def download_thunder_nubench(inputs: Path, root: Path, revision: str = "main") -> list[Path]:
    """Fetch the hub data set at ``revision`` (resolved to a commit) and write it under ``ROOT/thunder-nubench/``;
    returns the files written. ``inputs`` holds the hub snapshot while it is converted (then removed)."""
    try:
        from huggingface_hub import HfApi, snapshot_download
        from huggingface_hub.errors import GatedRepoError, HfHubHTTPError, RepositoryNotFoundError
    except ImportError:
        raise NegkitError("getting Thunder-NUBench needs huggingface_hub: pip install huggingface_hub") from None
    if offline_by_setting():
        raise NegkitError(
            "Thunder-NUBench comes from the Hugging Face hub, and HF_HUB_OFFLINE (or the like) is set: unset it, or "
            f"put a copy in DATA/{DATA_FOLDER}/multiple-choice/{{validation,test}}.jsonl"
        )
    token = os.environ.get("HF_TOKEN") or None
    hub = endpoint()
    try:
        commit = HfApi(endpoint=hub).dataset_info(HUB_ID, revision=revision, token=token).sha
        snapshot = Path(
            snapshot_download(
                HUB_ID,
                repo_type="dataset",
                revision=commit,
                local_dir=inputs / DATA_FOLDER,
                token=token,
                endpoint=hub,
                allow_patterns=[f"*{suffix}" for suffix in _SUFFIXES],
            )
        )
    except GatedRepoError:
        raise NegkitError(_gated_message("no access with " + ("this token" if token else "no token"))) from None
    except RepositoryNotFoundError:
        raise NegkitError(_gated_message("not found, or not visible without a token")) from None
    except HfHubHTTPError as error:
        raise NegkitError(f"Thunder-NUBench: the hub answered {error}") from None
    except OSError as error:
        raise NegkitError(
            f"Thunder-NUBench: the hub at {hub} cannot be reached ({error}); behind a firewall set HF_ENDPOINT to a "
            f"hub mirror, or put a copy in DATA/{DATA_FOLDER}/multiple-choice/{{validation,test}}.jsonl"
        ) from None
    written = []
    for config, splits in SPLITS.items():
        for split in splits:
            source = _split_file(snapshot, config, split)
            if source is None:
                continue
            target = root / DATA_FOLDER / config / f"{split}.jsonl"
            target.parent.mkdir(parents=True, exist_ok=True)
            rows = _records(source)
            atomic_write_text(target, "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows))
            written.append(target)
    if not any(DATA_FOLDER in str(p) and "multiple-choice" in p.parts for p in written):
        raise NegkitError(f"Thunder-NUBench: the hub snapshot at {commit} has no multiple-choice split files")
    atomic_write_json(root / DATA_FOLDER / "SOURCE.json", {"hub": HUB_ID, "endpoint": hub, "commit": commit})
    shutil.rmtree(inputs / DATA_FOLDER, ignore_errors=True)
    return written
