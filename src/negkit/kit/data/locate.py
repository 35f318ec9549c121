"""Where benchmark data comes from.

Search order for a data root: an explicit path (``--data``), the ``NEGKIT_DATA`` environment variable, the
user's data cache (:func:`cache_root`: where ``negkit data get`` puts what it downloads), then ``./data`` and
``../shared/data`` relative to the working directory. Each data set lives in a
sub-folder of the root: a benchmark's is named by its suite (:attr:`negkit.kit.suites.DataSource.folder`), the
resolution corpora's as in :data:`DATASET_FOLDERS`. An explicit path is the only place looked at:
when it does not exist, or does not hold the data set, that is an error (never a silent fall-back to another
folder, which would record the wrong data in the results).
"""

from __future__ import annotations

import os
from pathlib import Path

from negkit.errors import DataNotFoundError

#: Environment variable naming the data cache (default: ``$XDG_CACHE_HOME/negkit/data``, ``~/.cache/negkit/data``).
CACHE_VARIABLE = "NEGKIT_DATA_CACHE"

#: Sub-folder of the data root for data sets whose folder is not their name.
DATASET_FOLDERS: dict[str, str] = {"sfu": "sfu-review"}


def cache_root() -> Path:
    """The user's data cache: ``NEGKIT_DATA_CACHE``, else ``$XDG_CACHE_HOME/negkit/data`` (``~/.cache/negkit/data``
    when ``XDG_CACHE_HOME`` is unset)."""
    explicit = os.environ.get(CACHE_VARIABLE)
    if explicit:
        return Path(explicit).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path("~/.cache").expanduser())
    return Path(base) / "negkit" / "data"


def download_root(explicit: str | Path | None = None) -> Path:
    """Where ``negkit data get`` writes: ``--data``, else ``NEGKIT_DATA``, else the cache."""
    chosen = explicit or os.environ.get("NEGKIT_DATA")
    return Path(chosen).expanduser() if chosen else cache_root()


def candidate_roots(explicit: str | Path | None = None) -> list[Path]:
    """The data roots negkit tries, in order: ``--data``, ``NEGKIT_DATA``, the cache, ``./data``,
    ``../shared/data``."""
    roots: list[Path] = []
    if explicit:
        roots.append(Path(explicit))
    env = os.environ.get("NEGKIT_DATA")
    if env:
        roots.append(Path(env))
    roots += [cache_root(), Path("data"), Path("..") / "shared" / "data"]
    return roots


def find_data_root(explicit: str | Path | None = None) -> Path | None:
    """The first existing data root, or ``None``."""
    for root in candidate_roots(explicit):
        if root.is_dir():
            return root
    return None


def locate_dataset(name: str, explicit: str | Path | None = None) -> Path:
    """Return the folder of data set ``name`` or raise :class:`DataNotFoundError` naming where it looked."""
    folder = DATASET_FOLDERS.get(name, name)
    if explicit:
        given = Path(explicit).expanduser()
        if not given.exists():
            raise DataNotFoundError(f"{explicit}: no such file or folder (--data)")
        if given.name == folder:
            return given
        if (given / folder).exists():
            return given / folder
        raise DataNotFoundError(
            f"data set {name!r} not found in {explicit} (expected {given / folder}, or --data naming that folder); "
            f"get it with: negkit data get {name} --data {explicit}"
        )
    tried = []
    for root in candidate_roots(explicit):
        path = root / folder
        tried.append(str(path))
        if holds_data(path):
            return path
    raise DataNotFoundError(missing_message(name, tried))


def holds_data(path: Path) -> bool:
    """Whether ``path`` is a file, or a folder with at least one file (hidden ones aside): an empty folder, such as a
    download that never arrived left, is no data set and must not hide a whole copy later in the lookup order."""
    if path.is_file():
        return True
    if not path.is_dir():
        return False
    return any(entry.is_file() and not entry.name.startswith(".") for entry in path.rglob("*"))


def missing_message(name: str, tried: list[str] | None = None) -> str:
    """The one line said when data set ``name`` is missing: where negkit looked, and the command that gets it."""
    looked = f" (looked in {', '.join(tried)})" if tried else ""
    return f"data set {name!r} not found{looked}; get it with: negkit data get {name}"
