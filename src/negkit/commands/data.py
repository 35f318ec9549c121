"""``negkit data get | list | verify | mirror``: every benchmark's and corpus's declared files, fetched, listed,
checked and copied.

The data sets are the suites (their ``DataSource``) and the negation-resolution corpora
(:data:`negkit.kit.corpora.sources.CORPUS_SOURCES`). A data set is named by its suite name or alias, or by
its folder (``negation-nli``, ``cd-sco``, ``sfu``): the name a missing-data message prints.
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from negkit.errors import NegkitError
from negkit.io.atomic import make_folder
from negkit.kit.corpora.sources import CORPUS_SOURCES
from negkit.kit.data.declared import DataFile, check_file, human_size, total_size, unique_files
from negkit.kit.data.fetch import (
    MIRROR_VARIABLE,
    FetchReport,
    data_lock,
    fetch_files,
    file_groups,
    mirror_from_environment,
    missing_files,
    present_file,
)
from negkit.kit.data.locate import DATASET_FOLDERS, candidate_roots, download_root, holds_data, locate_dataset
from negkit.kit.suites.description import DataSource
from negkit.kit.suites.registry import all_suites
from negkit.kit.training.data_sources import TRAINING_SOURCES

Say = Callable[[str], None]
#: Folder under the data root where the public inputs of a build (e.g. CondaQA's few-shot files) are kept.
INPUTS_FOLDER = ".inputs"


def _stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


@dataclass(frozen=True)
class DataSet:
    """A named data set: a suite's or a corpus's :class:`DataSource`, and what kind it is."""

    name: str
    kind: str
    source: DataSource
    aliases: tuple[str, ...] = ()

    @property
    def files(self) -> tuple[DataFile, ...]:
        return self.source.files

    @property
    def size(self) -> int:
        return total_size(self.files)


def all_data_sets() -> list[DataSet]:
    """Every suite, resolution corpus and training data set, in the order ``negkit data list`` prints them."""
    sets = [DataSet(suite.name, "benchmark", suite.data, tuple(suite.aliases)) for suite in all_suites()]
    sets += [DataSet(name, "resource", source) for suite in all_suites() for name, source in suite.extra_data.items()]
    sets += [DataSet(name, "corpus", source) for name, source in CORPUS_SOURCES.items()]
    sets += [DataSet(name, "training", source) for name, source in TRAINING_SOURCES.items()]
    return sets


def resolve_data_sets(names: Sequence[str]) -> list[DataSet]:
    """The data sets ``names`` call for (a suite name or alias, a corpus, or a data folder name), in order."""
    sets = all_data_sets()
    chosen: list[DataSet] = []
    for name in names:
        folder = DATASET_FOLDERS.get(name, name)
        matches = [s for s in sets if name == s.name or name in s.aliases] or [
            s for s in sets if s.source.folder == folder
        ]
        if not matches:
            known = ", ".join(s.name for s in sets)
            raise NegkitError(f"unknown data set {name!r} (known: {known})")
        for match in matches[:1]:
            if match not in chosen:
                chosen.append(match)
    return chosen


def _fetch_size(file: DataFile, mirror: str | None) -> int:
    """Bytes a fetch of ``file`` downloads: the file from a mirror, the source's (uncompressed) bytes otherwise."""
    return (file.size or 0) if mirror else file.download_size


def _no_files_message(data_set: DataSet) -> str:
    return f"{data_set.name}: negkit cannot download it; {data_set.source.how_to_get}"


def _found_elsewhere(data_set: DataSet, say: Say) -> bool:
    """Whether every declared file of ``data_set`` is in one root of the lookup order other than the download root
    (checked by size; ``negkit data verify`` re-hashes), which is then said."""
    if not data_set.files:
        return False
    status = data_set_status(data_set, hashes=False)
    if status.complete and status.root is not None and status.root != download_root():
        say(f"{data_set.name}: found in {status.root}, nothing to get")
        return True
    return False


def data_get(
    names: Sequence[str] = (),
    everything: bool = False,
    data: str | Path | None = None,
    mirror: str | None = None,
    say: Say = _stderr,
    show_progress: bool | None = None,
) -> FetchReport:
    """Fetch what is missing of the named data sets (or all with ``everything``) into ``data`` (default:
    ``NEGKIT_DATA``, else the cache), from the declared URLs or ``mirror`` (default: ``NEGKIT_DATA_MIRROR``).
    Prints each data set's licence and size before it downloads. Raises :class:`NegkitError` naming every file that
    could not be had, after fetching all the others."""
    if not names and not everything:
        raise NegkitError("name the data sets to get (negkit data list shows them), or pass --all")
    sets = all_data_sets() if everything else resolve_data_sets(names)
    if data is None:  # a data set already whole somewhere in the lookup order is not missing
        sets = [data_set for data_set in sets if not _found_elsewhere(data_set, say)]
    root = download_root(data)
    mirror = mirror_from_environment(mirror)
    report = FetchReport()
    problems: list[str] = []
    make_folder(root)
    with data_lock(root, announce=say):
        missing_of = {data_set.name: missing_files(data_set.files, root) for data_set in sets if data_set.files}
        todo = [file for files in missing_of.values() for file in files]
        if todo:
            total = sum(_fetch_size(file, mirror) for file in todo)
            say(
                f"negkit data get: {len(todo)} file(s) of {sum(1 for f in missing_of.values() if f)} data set(s), "
                f"about {human_size(total)} to download into {root}"
            )
        for data_set in sets:
            source = data_set.source
            if not data_set.files and source.build is not None and everything:
                # built from other public files (MNLI's 227 MB zip) or fetched from elsewhere (a gated hub): asked
                # for by name only
                say(f"note: {data_set.name} is not part of --all: negkit data get {data_set.name} gets it")
                continue
            if not data_set.files and source.build is not None:
                if holds_data(root / source.folder):
                    continue  # built before (its output has no declared hash: the input's was checked)
                size = total_size(source.inputs)
                what = f"built from {len(source.inputs)} public file(s)" if source.inputs else "fetched by its own code"
                say(
                    f"{data_set.name}: {what}{f', {human_size(size)}' if size else ''}; "
                    f"licence: {source.licence}; cite: {source.citation}"
                )
                part = build_files(source, [], root, show_progress, mirror)
                report.merge(part)
                problems += [f"{data_set.name}: {reason}" for _, reason in part.failed]
                continue
            if not data_set.files:
                if not everything:
                    problems.append(_no_files_message(data_set))
                else:
                    say(_no_files_message(data_set))
                continue
            missing = missing_of[data_set.name]
            if not missing:
                report.present += [group[0].path for group in file_groups(data_set.files)]
                continue
            built = [] if mirror or source.build is None else [f for f in missing if f.url is None and not f.one_of]
            size = sum(_fetch_size(file, mirror) for file in missing if file not in built)
            size += sum(file.size or 0 for file in source.inputs) if built else 0
            where = f"mirror {mirror}" if mirror else "the authors' releases at pinned commits"
            say(
                f"{data_set.name}: {len(missing)} file(s), {human_size(size)} from {where}; "
                f"licence: {source.licence}; cite: {source.citation or '-'}"
            )
            fetched = [file for file in data_set.files if file not in built]
            part = fetch_files(fetched, root, mirror, label=data_set.name, show_progress=show_progress)
            if built:
                part.merge(build_files(source, built, root, show_progress))
            report.merge(part)
            if part.fetched:
                say(f"{data_set.name}: {len(part.fetched)} file(s), {human_size(part.downloaded_bytes)} into {root}")
            problems += [f"{data_set.name}: {reason}" for _, reason in part.failed]
    if problems:
        hint = "" if mirror else f" (behind a firewall: --mirror URL or {MIRROR_VARIABLE})"
        raise NegkitError("could not get: " + "; ".join(problems) + hint)
    return report


def build_files(
    source: DataSource,
    built: Sequence[DataFile],
    root: Path,
    show_progress: bool | None = None,
    mirror: str | None = None,
) -> FetchReport:
    """Fetch ``source.inputs`` into ``ROOT/.inputs/`` (hash-checked), run ``source.build`` and check each built
    file's hash; a built file with other bytes is removed and reported."""
    inputs_root = root / INPUTS_FOLDER
    report = fetch_files(source.inputs, inputs_root, mirror, label="inputs", show_progress=show_progress)
    if report.failed:
        report.failed = [(path, f"an input of the build: {reason}") for path, reason in report.failed]
        report.fetched = []
        return report
    assert source.build is not None
    source.build(inputs_root, root)
    done = FetchReport(fetched=list(report.fetched))
    for file in built:
        problem = check_file(root / file.path, file)
        if problem:
            (root / file.path).unlink(missing_ok=True)
            done.failed.append((file.path, f"built, but {problem}"))
    return done


@dataclass(frozen=True)
class DataSetStatus:
    """Where a data set's files are: the data root holding all of them (or the most of them), and what is wrong."""

    data_set: DataSet
    root: Path | None
    present: int
    needed: int
    problems: tuple[str, ...]

    @property
    def complete(self) -> bool:
        return self.needed > 0 and self.present == self.needed and not self.problems


def data_set_status(data_set: DataSet, data: str | Path | None = None, hashes: bool = True) -> DataSetStatus:
    """Where ``data_set`` is (the first root in the lookup order holding its folder) and how many of its files
    are there; with ``hashes`` each present file is re-hashed (a changed or cut file is a problem)."""
    groups = file_groups(data_set.files)
    for root in candidate_roots(data):
        if not holds_data(root / data_set.source.folder):
            continue
        present, problems = 0, []
        for group in groups:
            there = [file for file in group if (root / file.path).is_file()]
            if not there:
                continue
            present += 1
            if hashes:
                bad = [problem for file in there if (problem := check_file(root / file.path, file))]
                if len(bad) == len(there):
                    problems += bad
            elif all((root / f.path).stat().st_size != f.size for f in there):
                problems.append(f"{root / there[0].path}: size differs from the declared {there[0].size} bytes")
        return DataSetStatus(data_set, root, present, len(groups), tuple(problems))
    return DataSetStatus(data_set, None, 0, len(groups), ())


def data_list(data: str | Path | None = None) -> list[DataSetStatus]:
    """Every data set with where it is (sizes compared, not hashes: ``negkit data verify`` re-hashes)."""
    return [data_set_status(data_set, data, hashes=False) for data_set in all_data_sets()]


def render_list(statuses: Sequence[DataSetStatus], data: str | Path | None = None) -> str:
    """``negkit data list``'s table: name, kind, files, size, where (or what is missing), licence, citation key;
    columns aligned, the licence last but one so that a long licence does not push the rest far right."""
    rows = list_rows(statuses, data)
    order = (0, 1, 2, 3, 4, 6, 5)
    widths = {column: max(len(row[column]) for row in rows) for column in order}
    lines = ["  ".join(row[column].ljust(widths[column]) for column in order).rstrip() for row in rows]
    return "\n".join(lines) + "\n"


def list_rows(statuses: Sequence[DataSetStatus], data: str | Path | None = None) -> list[tuple[str, ...]]:
    """The rows of ``negkit data list``: data set, kind, files, size, where, licence, citation key."""
    rows: list[tuple[str, ...]] = [("data set", "kind", "files", "size", "where", "licence", "cite")]
    for status in statuses:
        data_set = status.data_set
        if not data_set.files and data_set.source.build is not None:
            found = next((r for r in candidate_roots(data) if holds_data(r / data_set.source.folder)), None)
            files, size = "built", "-"
            where = str(found) if found else f"missing (negkit data get {data_set.name}: built from public files)"
        elif not data_set.files:
            where, files, size = f"not downloadable (negkit data get {data_set.name} says how to get it)", "-", "-"
        else:
            files, size = str(status.needed), human_size(data_set.size)
            if status.root is None:
                where = f"missing (negkit data get {data_set.name})"
            elif status.problems:
                where = f"{status.root} ({len(status.problems)} changed: negkit data verify)"
            elif status.present < status.needed:
                where = f"{status.root} ({status.needed - status.present} of {status.needed} missing)"
            else:
                where = str(status.root)
        rows.append(
            (data_set.name, data_set.kind, files, size, where, data_set.source.licence, data_set.source.citation)
        )
    return rows


def data_path(name: str, data: str | Path | None = None) -> Path:
    """The folder data set ``name`` is found in (the lookup order), or :class:`DataNotFoundError` with the command
    that gets it."""
    data_set = resolve_data_sets([name])[0]
    return locate_dataset(data_set.source.folder, data)


def data_verify(names: Sequence[str] = (), data: str | Path | None = None) -> list[DataSetStatus]:
    """Re-hash every present file of the named data sets (all without names) against its declaration."""
    sets = resolve_data_sets(names) if names else all_data_sets()
    return [data_set_status(data_set, data, hashes=True) for data_set in sets if data_set.files]


def data_mirror(
    out: str | Path,
    names: Sequence[str] = (),
    data: str | Path | None = None,
    mirror: str | None = None,
    say: Say = _stderr,
) -> FetchReport:
    """Write a folder that serves as a mirror (``NEGKIT_DATA_MIRROR=URL`` of a web server over it, or the folder
    itself): every declared file of the named data sets (all without names) under its path, copied from the data
    found locally (hash-checked) or else fetched."""
    out = make_folder(Path(out).expanduser())
    sets = resolve_data_sets(names) if names else [s for s in all_data_sets() if s.files]
    files = unique_files([file for data_set in sets for file in data_set.files])
    report = FetchReport()
    with data_lock(out, announce=say):
        for group in file_groups(files):
            done = present_file(group, out)
            if done is not None:
                report.present.append(done.path)
                continue
            local = next(
                (
                    (root / file.path, file)
                    for file in group
                    for root in candidate_roots(data)
                    if check_file(root / file.path, file) is None
                ),
                None,
            )
            if local is None:  # no local copy of any alternative: fetch it
                report.merge(fetch_files(group, out, mirror_from_environment(mirror), label=group[0].path))
                continue
            source, file = local
            target = out / file.path
            target.parent.mkdir(parents=True, exist_ok=True)
            temporary = target.with_name(target.name + ".copying")
            shutil.copyfile(source, temporary)
            temporary.replace(target)
            report.fetched.append((file.path, file.size if file.size is not None else target.stat().st_size))
    for path, reason in report.failed:
        say(f"not in the mirror: {path}: {reason}")
    return report


def download_for_tasks(
    task_names: Sequence[str] | None, data: str | Path | None = None, mirror: str | None = None, say: Say = _stderr
) -> FetchReport:
    """What ``negkit eval --download`` does before anything else: get the declared files of the suites of
    ``task_names`` (suite, task or group names; ``None``: every suite ``negkit eval`` runs by default) whose data
    is not found in the lookup order, into ``data`` (default: ``NEGKIT_DATA``, else the cache)."""
    from negkit.commands.status import default_suites, locate_task_data
    from negkit.kit.suites.registry import expand_task_names, suite_for_task

    if task_names is None:
        runs = default_suites()
        suites = [suite for suite in all_suites() if suite.name in runs]
    else:
        suites = []
        for task in expand_task_names(task_names):
            suite = suite_for_task(task)
            if suite is not None and suite not in suites:
                suites.append(suite)
    wanted = [s.name for s in suites if s.data.files and locate_task_data(s.main_task, data) is None]
    if not wanted:
        return FetchReport()
    return data_get(wanted, data=data, mirror=mirror, say=say)
