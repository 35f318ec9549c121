"""Malformed TIND inputs (raw folder, zip, JSON Lines, parquet, predictions) in every command that reads them:
`tind stats|convert|check|realise`, `score tind` and `eval --tasks tind --data`. One `negkit: error: FILE[:LINE]:
problem` line, exit 2, nothing on stdout, no traceback; silent acceptances of the past are errors now."""

from __future__ import annotations

import json
import time
import zipfile
from pathlib import Path

import pytest
from malformed import assert_input_error

from negkit.benchmarks.tind.data import item_record, write_tind_raw

COMMANDS = ("stats", "convert", "check", "realise", "eval")


def _argv(command: str, source: Path, tmp_path: Path) -> list:
    return {
        "stats": ["tind", "stats", source],
        "convert": ["tind", "convert", source, tmp_path / "converted.jsonl"],
        "check": ["tind", "check", source],
        "realise": ["tind", "realise", source, "--out", tmp_path / "realised"],
        "eval": ["eval", "--model", "default", "--tasks", "tind", "--data", source, "--out", tmp_path / "run"],
    }[command]


@pytest.fixture(scope="module")
def groups():
    from tind_support import public_groups

    chosen = [group for group in public_groups() if group.pattern_id == 9][:3]
    return chosen + [group for group in public_groups() if group.pattern_id == 7][:2]


@pytest.fixture
def raw(tmp_path, groups) -> Path:
    folder = tmp_path / "raw"
    write_tind_raw(groups, folder)
    return folder


def _pattern9(raw: Path) -> Path:
    return raw / "#09.Pattern.txt"


def _edit_lines(path: Path, edit) -> None:
    lines = path.read_bytes().split(b"\n")
    path.write_bytes(b"\n".join(edit(lines)))


RAW_CASES = {
    "cut-mid-line": lambda p: p.write_bytes(p.read_bytes()[:-12]),
    "empty-pattern-file": lambda p: p.write_bytes(b""),
    "group-missing-a-sentence": lambda p: _edit_lines(p, lambda lines: lines[:9] + lines[10:]),
    "bad-header": lambda p: _edit_lines(p, lambda lines: [b"% Tset 1\tSource: x\tDistractor: y"] + lines[1:]),
    "not-utf8": lambda p: _edit_lines(p, lambda lines: lines[:3] + [lines[3] + b"\xff\xfe"] + lines[4:]),
    "six-fields": lambda p: _edit_lines(p, lambda lines: lines[:3] + [lines[3].rsplit(b"\t", 1)[0]] + lines[4:]),
    "bad-label": lambda p: _edit_lines(
        p, lambda lines: lines[:3] + [lines[3].replace(b"\tT\t", b"\tX\t").replace(b"\tF\t", b"\tX\t")] + lines[4:]
    ),
    "header-without-sentences": lambda p: _edit_lines(p, lambda lines: lines[:2] + lines[7:]),
    "group-twice": lambda p: p.write_bytes(p.read_bytes() * 2),
    "unknown-negation-type": lambda p: _edit_lines(
        p,
        lambda lines: lines[:3]
        + [lines[3].replace(b"\taffirmation\t", b"\tbogus\t").replace(b"\tverbal\t", b"\tbogus\t")]
        + lines[4:],
    ),
    "pattern-file-is-a-folder": lambda p: (p.unlink(), p.mkdir()),
}
RAW_LINES = {
    "group-missing-a-sentence": 8,
    "bad-header": 1,
    "not-utf8": None,
    "six-fields": 4,
    "bad-label": 4,
    "header-without-sentences": 1,
    "unknown-negation-type": 4,
}


@pytest.mark.parametrize("case", sorted(RAW_CASES))
@pytest.mark.parametrize("command", COMMANDS)
def test_malformed_raw_folder(command, case, raw, tmp_path, capsys):
    path = _pattern9(raw)
    RAW_CASES[case](path)
    assert_input_error(_argv(command, raw, tmp_path), capsys, where=path, line=RAW_LINES.get(case))
    assert not (tmp_path / "converted.jsonl").exists() and not (tmp_path / "run").exists()


def _zip(raw: Path, target: Path) -> Path:
    with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(raw.iterdir()):
            archive.write(path, f"raw/{path.name}")
    return target


def _corrupt_member(archive: Path) -> None:
    data = bytearray(archive.read_bytes())
    with zipfile.ZipFile(archive) as opened:
        info = opened.getinfo("raw/#09.Pattern.txt")
    start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
    for offset in range(start + 10, start + min(info.compress_size, 60)):
        data[offset] ^= 0x5A
    archive.write_bytes(bytes(data))


ZIP_CASES = {
    "corrupt-member": (_corrupt_member, "raw/#09.Pattern.txt"),
    "truncated": (lambda a: a.write_bytes(a.read_bytes()[: len(a.read_bytes()) // 2]), None),
    "empty": (lambda a: a.write_bytes(b""), None),
    "not-a-zip": (lambda a: a.write_bytes(b"this is not a zip file\n"), None),
}


@pytest.mark.parametrize("case", sorted(ZIP_CASES))
@pytest.mark.parametrize("command", COMMANDS)
def test_malformed_zip(command, case, raw, tmp_path, capsys):
    archive = _zip(raw, tmp_path / "release.zip")
    breakage, member = ZIP_CASES[case]
    breakage(archive)
    where = f"{archive}:{member}" if member else archive
    assert_input_error(_argv(command, archive, tmp_path), capsys, where=where)


def test_wrong_zip_password(raw, tmp_path, capsys):
    from tind_support import public_zip

    assert_input_error(
        ["tind", "stats", public_zip(), "--password", "wrong"], capsys, where=public_zip(), contains="cannot decrypt"
    )


# -- HF layout: JSON Lines and parquet ---------------------------------------------------------------


@pytest.fixture
def records(groups) -> list[dict]:
    return [item_record(item) for group in groups for item in group.items]


def _jsonl(path: Path, records: list, extra: bytes = b"") -> Path:
    path.write_bytes(b"".join(json.dumps(r).encode() + b"\n" for r in records) + extra)
    return path


JSONL_CASES = {  # name -> (how to break the records, line of the error)
    "not-utf8": (lambda rs, p: _jsonl(p, rs[:2], b'{"sentence": "\xff"}\n'), 3),
    "not-json": (lambda rs, p: _jsonl(p, rs[:2], b"{not json\n"), 3),
    "not-an-object": (lambda rs, p: _jsonl(p, rs[:1] + [[1, 2]]), 2),
    "missing-field": (lambda rs, p: _jsonl(p, rs[:1] + [{k: v for k, v in rs[1].items() if k != "label"}]), 2),
    "wrong-type": (lambda rs, p: _jsonl(p, rs[:1] + [{**rs[1], "pattern_id": "nine"}]), 2),
    "fractional-id": (lambda rs, p: _jsonl(p, rs[:1] + [{**rs[1], "test_id": 3.7}]), 2),
    "negative-id": (lambda rs, p: _jsonl(p, rs[:1] + [{**rs[1], "test_id": -4}]), 2),
    "bad-boolean": (lambda rs, p: _jsonl(p, rs[:1] + [{**rs[1], "label": "maybe"}]), 2),
    "huge-wrong-field": (lambda rs, p: _jsonl(p, rs[:1] + [{**rs[1], "pattern": "x" * 3_000_000}]), 2),
    "empty": (lambda rs, p: p.write_bytes(b""), None),
    "blank-lines-only": (lambda rs, p: p.write_bytes(b"\n\n  \n"), None),
}


@pytest.mark.parametrize("case", sorted(JSONL_CASES))
@pytest.mark.parametrize("command", ["stats", "convert", "eval", "score"])
def test_malformed_jsonl(command, case, records, tmp_path, capsys):
    breakage, line = JSONL_CASES[case]
    path = tmp_path / "test.jsonl"
    if command == "score":
        records = [{**record, "prediction": True} for record in records]
    breakage(records, path)
    argv = ["score", "tind", path] if command == "score" else _argv(command, path, tmp_path)
    assert_input_error(argv, capsys, where=path, line=line)


def test_duplicate_tind_predictions(records, tmp_path, capsys):
    lines = [{**record, "prediction": True} for record in records]
    path = _jsonl(tmp_path / "p.jsonl", lines + lines[3:4])
    assert_input_error(["score", "tind", path], capsys, where=path, line=len(lines) + 1, contains="twice")


PARQUET_CASES = {
    "zero-bytes": lambda p, rs: p.write_bytes(b""),
    "not-parquet": lambda p, rs: p.write_text("pattern_id,sentence\n1,x\n"),
    "truncated": lambda p, rs: (_parquet(p, rs), p.write_bytes(p.read_bytes()[:-40])),
    "wrong-schema": lambda p, rs: _parquet(p, [{"a": 1}, {"a": 2}]),
    "wrong-types": lambda p, rs: _parquet(p, [{**r, "pattern_id": str(r["pattern_id"])} for r in rs]),
}


def _parquet(path: Path, rows: list[dict]) -> None:
    import pyarrow
    import pyarrow.parquet as parquet

    parquet.write_table(pyarrow.Table.from_pylist(rows), path)


@pytest.mark.parametrize("case", sorted(PARQUET_CASES))
@pytest.mark.parametrize("command", ["stats", "convert", "eval"])
def test_malformed_parquet(command, case, records, tmp_path, capsys):
    path = tmp_path / "test.parquet"
    PARQUET_CASES[case](path, records)
    assert_input_error(_argv(command, path, tmp_path), capsys, where=path)


def test_missing_source_path(tmp_path, capsys):
    for command in ("stats", "convert", "check", "realise"):
        missing = tmp_path / "nowhere" / "raw"
        assert_input_error(_argv(command, missing, tmp_path), capsys, where=missing)


def test_bad_tind_command_arguments(tmp_path, capsys):
    from tind_support import public_zip

    blocker = tmp_path / "file.txt"
    blocker.write_text("x")
    cases = [
        (["tind", "stats", public_zip(), "--split", "bogus"], "unknown split"),
        (["tind", "generate", "--out", tmp_path / "g", "--patterns", "a,b"], "--patterns"),
        (["tind", "generate", "--out", tmp_path / "g", "--patterns", "12"], "--patterns"),
        (["tind", "generate", "--out", tmp_path / "g", "--limit", "0"], "--limit"),
        (["tind", "generate", "--out", blocker], "not a folder"),
        (["tind", "realise", public_zip(), "--out", blocker], "not a folder"),
        (["tind", "convert", public_zip(), blocker / "raw"], "not a folder"),
        (["tind", "convert", public_zip(), "/dev/null/x.jsonl"], "cannot write"),
        (["tind", "stats", public_zip(), "--seed", "x"], "--seed"),
        (["tind", "stats", public_zip(), "--seed", "-1"], "--seed"),
        (["tind", "stats", public_zip(), "--split", ""], "unknown split"),
        (["tind", "convert", public_zip(), tmp_path / "c.jsonl", "--split", ""], "unknown split"),
        (["tind", "generate", "--out", "/dev/null/g", "--patterns", "1", "--limit", "1"], "/dev/null"),
    ]
    for argv, fragment in cases:
        started = time.monotonic()
        assert_input_error(argv, capsys, contains=fragment)
        if "generate" in argv or "realise" in argv:
            assert time.monotonic() - started < 1  # refused before any work


def _wordnet_root(tmp_path: Path, broken: str, content: bytes) -> Path:
    """A data root whose wordnet/ links the shared side resources, but for one file replaced by ``content``."""
    from conftest import shared_data_path, wordnet_database_or_skip

    shared = shared_data_path("wordnet")  # skips, naming the folder, when the side resources are absent
    wordnet_database_or_skip()  # the database is read before the side resources
    folder = tmp_path / "data" / "wordnet"
    folder.mkdir(parents=True)
    for path in shared.iterdir():
        (folder / path.name).symlink_to(path)
    (folder / broken).unlink()
    (folder / broken).write_bytes(content)
    return folder.parent


@pytest.mark.parametrize("broken", ["core-wordnet.txt", "morphosemantic-links.tsv"])
def test_side_resource_not_utf8(broken, tmp_path, capsys):
    from conftest import shared_data_path

    good = (shared_data_path("wordnet") / broken).read_bytes()
    root = _wordnet_root(tmp_path, broken, good[:300] + b"\xff\xfe" + good[300:])
    assert_input_error(
        ["tind", "generate", "--out", tmp_path / "g", "--patterns", "1", "--limit", "1", "--data", root],
        capsys,
        where=root / "wordnet" / broken,
        contains="not UTF-8",
    )


def test_empty_wordnet_database(tmp_path, capsys):
    database = tmp_path / "dict"
    database.mkdir()
    for name in ("data.noun", "data.verb", "index.noun", "index.verb", "index.sense"):
        (database / name).write_bytes(b"")
    assert_input_error(
        ["tind", "generate", "--out", tmp_path / "g", "--patterns", "1", "--limit", "1", "--wordnet", database],
        capsys,
        where=database / "data.noun",
        contains="empty",
    )


def test_check_of_a_small_generation_with_an_empty_split(tmp_path, capsys):
    """A split no group fell into is an empty file that `tind check` accepts; a split file emptied afterwards is not."""
    from conftest import shared_data_path, wordnet_database_or_skip

    from negkit.cli import main

    out = tmp_path / "g"
    data = shared_data_path("wordnet").parent  # the prerequisites (each skips with its name when absent)
    wordnet = wordnet_database_or_skip()
    argv = [
        "tind",
        "generate",
        "--out",
        str(out),
        "--patterns",
        "1",
        "--limit",
        "2",
        "--data",
        str(data),
        "--wordnet",
        str(wordnet),
    ]
    assert main(argv) == 0, capsys.readouterr().err
    empty = [path for path in (out / "jsonl").iterdir() if path.stat().st_size == 0]
    assert empty, "two groups cannot fill three splits"
    capsys.readouterr()
    assert main(["tind", "check", str(out)]) == 0
    capsys.readouterr()
    filled = next(path for path in (out / "jsonl").iterdir() if path.stat().st_size)
    filled.write_bytes(b"")
    assert_input_error(["tind", "check", out], capsys, where=out / "jsonl", contains="in no split file")
