"""Malformed negation-resolution inputs (CD-SCO, BioScope, SFU, resolution model folders, raw text) in every command
that reads them: one `negkit: error: FILE[:LINE]: problem` line, exit 2, nothing on stdout, no traceback."""

from __future__ import annotations

import json
import pickle
import time
from pathlib import Path

import pytest
from malformed import assert_input_error

TOKENS = [
    ("I", "I", "PRP", "(S(NP*)", "_", "_", "_"),
    ("did", "do", "VBD", "(VP*", "_", "did", "_"),
    ("not", "not", "RB", "*", "not", "_", "_"),
    ("see", "see", "VB", "(VP*", "_", "see", "see"),
    ("him", "he", "PRP", "(NP*)))", "_", "him", "_"),
    (".", ".", ".", "*)", "_", "_", "_"),
]


def cdsco_text() -> str:
    """Two sentences: one with a negation instance (10 fields), one without (8 fields, ***)."""
    first = [f"story\t0\t{i}\t" + "\t".join(fields) for i, fields in enumerate(TOKENS)]
    second = [f"story\t1\t{i}\t{w}\t{w.lower()}\tNN\t*\t***" for i, w in enumerate(["Yes", "."])]
    return "\n".join(first) + "\n\n" + "\n".join(second) + "\n\n"


def write(path: Path, content: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


@pytest.fixture
def gold(tmp_path) -> Path:
    return write(tmp_path / "gold.txt", cdsco_text())


#: Malformed CD-SCO files: name -> (content, line the error must name or None).
CDSCO_CASES = {
    "no-tabs": (b"This is plain text without any tabs.\nAnd a second line.\n", 1),
    "not-utf8": (cdsco_text().encode().replace(b"did", b"d\xffd", 1), 2),
    "empty": (b"", None),
    "only-newlines": (b"\n\n\n", 1),
    "three-fields": (b"a\tb\tc\n", 1),
    "crlf": (cdsco_text().replace("\n", "\r\n").encode(), 1),
    "cut-mid-line": (cdsco_text()[: cdsco_text().index("see") + 2].encode(), 4),
    "huge-field": (b"x" * 3_000_000 + b"\n", 1),
    "nul-bytes": (b"\x00" * 64, 1),
    "bad-token-number": (cdsco_text().replace("story\t0\t3", "story\t0\t7").encode(), 4),
    "binary": (bytes(range(256)) * 8, 2),  # the first byte that is not UTF-8 follows the first line feed
}


@pytest.mark.parametrize("case", sorted(CDSCO_CASES))
@pytest.mark.parametrize("command", ["stats", "baseline", "predict", "score-gold", "score-system", "validate"])
def test_malformed_cdsco(command, case, tmp_path, gold, capsys):
    content, line = CDSCO_CASES[case]
    bad = write(tmp_path / f"{case}.txt", content)
    argv = {
        "stats": ["resolution", "stats", bad],
        "baseline": ["resolution", "baseline", bad, "--out", tmp_path / "out.txt"],
        "predict": ["resolution", "predict", tmp_path / "no-model", bad, "--out", tmp_path / "out.txt"],
        "score-gold": ["resolution", "score", bad, gold],
        "score-system": ["resolution", "score", gold, bad],
        "validate": ["resolution", "validate", bad, "--gold", gold],
    }[command]
    if case == "crlf" and command in ("score-system", "validate"):
        line = 7  # as the official scorer: the first blank line of the gold file is not blank in the system file
    assert_input_error(argv, capsys, where=bad, line=line)
    assert not (tmp_path / "out.txt").exists()


@pytest.mark.parametrize("command", ["stats", "baseline", "score", "tag-file"])
def test_missing_input_file(command, tmp_path, gold, capsys):
    missing = tmp_path / "missing.txt"
    argv = {
        "stats": ["resolution", "stats", missing],
        "baseline": ["resolution", "baseline", missing, "--out", tmp_path / "o.txt"],
        "score": ["resolution", "score", gold, missing],
        "tag-file": ["resolution", "tag", "--file", missing],
    }[command]
    assert_input_error(argv, capsys, where=missing, contains="no such")


def test_folder_where_a_file_belongs(tmp_path, gold, capsys):
    folder = tmp_path / "folder"
    folder.mkdir()
    assert_input_error(["resolution", "score", folder, gold], capsys, where=folder, contains="folder")
    assert_input_error(["resolution", "tag", "--file", folder], capsys, where=folder, contains="folder")


def test_tag_file_not_utf8(tmp_path, capsys):
    bad = write(tmp_path / "text.txt", b"I do not\xff like it.\n")
    assert_input_error(["resolution", "tag", "--file", bad], capsys, where=bad, line=1)


@pytest.mark.parametrize("out_kind", ["folder", "under-a-file", "dev-null-child"])
def test_baseline_out_that_cannot_be_written(out_kind, tmp_path, gold, capsys):
    blocker = write(tmp_path / "blocker.txt", "x")
    (tmp_path / "folder").mkdir()
    out = {"folder": tmp_path / "folder", "under-a-file": blocker / "out.txt", "dev-null-child": "/dev/null/out.txt"}[
        out_kind
    ]
    assert_input_error(["resolution", "baseline", gold, "--out", out], capsys, where=out)


# -- BioScope and SFU XML ----------------------------------------------------------------------------

BIOSCOPE_HEAD = '<?xml version="1.0" encoding="utf-8"?>\n<Annotation>\n<DocumentSet><Document><DocID>1</DocID>\n'
BIOSCOPE_SENTENCE = (
    '<sentence id="S1.1">It is <xcope id="X1"><cue type="negation" ref="X1">not</cue> here</xcope>.</sentence>\n'
)
BIOSCOPE_TAIL = "</Document></DocumentSet>\n</Annotation>\n"
SFU_REVIEW = (
    '<DOCUMENT><P>\n<SENTENCE><W>I</W><cue ID="1" type="negation"><W>do</W><W>n\'t</W></cue>'
    '<xcope ID="2"><ref ID="3" SRC="1"/><W>like</W><W>it</W></xcope><W>.</W></SENTENCE>\n</P></DOCUMENT>\n'
)

XML_CASES = {
    "bioscope-unclosed": (BIOSCOPE_HEAD + BIOSCOPE_SENTENCE.replace("</xcope>", "") + BIOSCOPE_TAIL, 4),
    "bioscope-truncated": ((BIOSCOPE_HEAD + BIOSCOPE_SENTENCE)[:-30], None),
    "bioscope-not-utf8": ((BIOSCOPE_HEAD + BIOSCOPE_SENTENCE + BIOSCOPE_TAIL).encode().replace(b"here", b"h\xe9re"), 4),
    "bioscope-no-sentence-id": (BIOSCOPE_HEAD + BIOSCOPE_SENTENCE.replace(' id="S1.1"', "") + BIOSCOPE_TAIL, 4),
    "bioscope-deep-nesting": (BIOSCOPE_HEAD + "<x>" * 200_000 + "</x>" * 200_000 + BIOSCOPE_TAIL, None),
    "bioscope-entity-bomb": (
        '<?xml version="1.0"?>\n<!DOCTYPE Annotation [<!ENTITY a "aaaaaaaaaa">'
        + "".join(f'<!ENTITY {chr(98 + i)} "' + f"&{chr(97 + i)};" * 10 + '">' for i in range(8))
        + "]>\n<Annotation>&i;</Annotation>\n",
        None,
    ),
    "sfu-unclosed": (SFU_REVIEW.replace("</W><W>it", "<W>it"), None),
    "sfu-bad-root": ("<REVIEW><P></P></REVIEW>\n", None),
    "sfu-unexpected-element": (SFU_REVIEW.replace("<W>I</W>", "<B>I</B>"), 2),
}


@pytest.mark.parametrize("case", sorted(XML_CASES))
@pytest.mark.parametrize("command", ["stats", "predict"])
def test_malformed_xml(command, case, tmp_path, capsys):
    content, line = XML_CASES[case]
    bad = write(tmp_path / f"{case}.xml", content.encode() if isinstance(content, str) else content)
    argv = {
        "stats": ["resolution", "stats", bad],
        "predict": ["resolution", "predict", tmp_path / "no-model", bad, "--out", tmp_path / "o.txt"],
    }[command]
    assert_input_error(argv, capsys, where=bad, line=line)


def test_sfu_folder_with_a_broken_review(tmp_path, capsys):
    folder = tmp_path / "SFU" / "BOOKS"
    write(folder / "yes1.xml", SFU_REVIEW)
    bad = write(folder / "no2.xml", SFU_REVIEW[:40])
    assert_input_error(["resolution", "stats", tmp_path / "SFU"], capsys, where=bad)


def test_bioscope_cue_outside_a_sentence_is_counted(tmp_path, capsys):
    from negkit.cli import main

    text = BIOSCOPE_HEAD + BIOSCOPE_SENTENCE + '<cue type="negation" ref="X9">no</cue>\n' + BIOSCOPE_TAIL
    path = write(tmp_path / "b.xml", text)
    capsys.readouterr()
    assert main(["resolution", "stats", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["unmapped"] == 1


# -- resolution model folders ------------------------------------------------------------------------


def _model_folder(tmp_path: Path, breakage: str) -> Path:
    folder = tmp_path / "resolver"
    for part in ("cue", "scope"):
        (folder / part / "encoder").mkdir(parents=True)
    settings = {"encoder": "x", "scope_variant": "marker", "cue": {}, "scope": {}, "max_length": 64}
    config = {
        "garbage-config": "{not json",
        "config-not-object": "[1, 2]",
        "config-missing-keys": json.dumps({"negkit_version": "0"}),
    }.get(breakage, json.dumps({"settings": settings}))
    write(folder / "negkit_resolution.json", config)
    if breakage == "pickle-weights":
        write(folder / "cue" / "tagger.json", json.dumps({"labels": 2}))
        (folder / "cue" / "head.pt").write_bytes(pickle.dumps(Path("anything")))
    return folder


@pytest.mark.parametrize(
    "breakage",
    [
        "garbage-config",
        "config-not-object",
        "config-missing-keys",
        "missing-head",
        "pickle-weights",
        "empty-folder",
        "a-file",
    ],
)
@pytest.mark.parametrize("command", ["predict", "tag", "evaluate"])
def test_broken_resolution_model_folder(command, breakage, tmp_path, gold, capsys):
    if breakage == "empty-folder":
        folder = tmp_path / "empty"
        folder.mkdir()
    elif breakage == "a-file":
        folder = write(tmp_path / "model.bin", b"\x00\x01")
    else:
        folder = _model_folder(tmp_path, breakage)
    argv = {
        "predict": ["resolution", "predict", folder, gold, "--out", tmp_path / "o.txt"],
        "tag": ["resolution", "tag", "--model", folder, "I did not go."],
        "evaluate": ["resolution", "evaluate", folder, "--data", tmp_path],
    }[command]
    assert_input_error(argv, capsys, where=folder)


@pytest.mark.parametrize(
    "flags",
    [
        ["--minutes", "-1"],
        ["--threads", "0"],
        ["--cue-epochs", "0"],
        ["--seed", "-1"],
        ["--encoder", "./no-such-encoder"],
    ],
    ids=lambda flags: flags[0],
)
def test_bad_train_arguments_fail_before_training(flags, tmp_path, capsys):
    assert_input_error(["resolution", "train", "--out", tmp_path / "m", *flags], capsys)
    assert not (tmp_path / "m").exists()


def test_train_out_that_is_a_file_fails_before_training(tmp_path, capsys):
    blocker = write(tmp_path / "model", "x")
    started = time.monotonic()
    assert_input_error(["resolution", "train", "--out", blocker], capsys, where=blocker)
    assert time.monotonic() - started < 5


def test_score_seed_must_be_a_seed(tmp_path, gold, capsys):
    assert_input_error(["resolution", "score", gold, gold, "--seed", "-1"], capsys, contains="--seed")


def test_empty_text_to_tag(tmp_path, capsys):
    assert_input_error(["resolution", "tag", ""], capsys, contains="no text to tag")
    empty = write(tmp_path / "empty.txt", "  \n")
    assert_input_error(["resolution", "tag", "--file", empty], capsys, where=empty, contains="no text to tag")
    text = write(tmp_path / "text.txt", "I did not go.\n")
    assert_input_error(["resolution", "tag", "--file", text, "I went."], capsys, contains="not both")


def test_tag_standard_input_not_utf8(tmp_path):
    """`--file -` reads bytes: bad ones are one error naming '-' and the line, whatever the locale."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "LC_ALL": "C", "PYTHONIOENCODING": "utf-8:strict"}
    done = subprocess.run(
        [sys.executable, "-m", "negkit", "resolution", "tag", "--file", "-"],
        input=b"I do not\xff go.\n",
        capture_output=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 2 and done.stdout == b""
    assert done.stderr.decode().startswith("negkit: error: -:1: not UTF-8") and b"Traceback" not in done.stderr


def test_baseline_out_in_a_folder_not_made_yet_is_written(tmp_path, gold, capsys):
    """``--out runs/x.txt`` on a fresh checkout (no runs/ folder yet) creates the folder, as ``negkit eval`` does."""
    from negkit.cli import main

    out = tmp_path / "runs" / "deeper" / "baseline.txt"
    assert main(["resolution", "baseline", str(gold), "--out", str(out)]) == 0
    assert out.read_text(encoding="utf-8").strip()
