"""Every declared data file (the ``files`` of each suite's and resolution corpus's ``DataSource``) is the file in
``../shared/data``: same size, same SHA-256. A file with no public URL says why (``note``), and a gzipped file's
URL serves the bytes its ``unpacked_sha256`` names."""

from __future__ import annotations

import gzip
import hashlib
import json
from pathlib import Path

import pytest

from negkit.errors import InputFormatError
from negkit.kit.corpora.sources import CORPUS_SOURCES
from negkit.kit.data.declared import DataFile, check_file, declared_files, gzip_bytes, total_size
from negkit.kit.suites.registry import all_suites
from negkit.kit.training_data.data_sources import TRAINING_SOURCES

#: Declared files that are not in ../shared/data: the authors' full TIND zip (the shared folder holds only its
#: public half, raw-public.zip, declared as the alternative a mirror serves).
NOT_SHARED = {"tind/This-is-not-a-dataset_RAW_DATA.zip"}


def all_sources():
    extra = [item for suite in all_suites() for item in suite.extra_data.items()]
    return [(suite.name, suite.data) for suite in all_suites()] + [
        *CORPUS_SOURCES.items(),
        *TRAINING_SOURCES.items(),
        *extra,
    ]


def all_declared() -> list[tuple[str, DataFile]]:
    return [(name, file) for name, source in all_sources() for file in source.files]


def test_every_benchmark_and_corpus_declares_its_files_and_citation():
    for name, source in all_sources():
        assert source.citation, name
        if name in ("thunder-nubench", "mnli-neg"):
            continue  # a gated hub data set and a data set the user builds: see their how_to_get
        assert source.files, name
        for file in source.files:
            assert file.path.startswith(source.folder.split("/")[0]) or name == "heldout-text", (name, file.path)
            assert file.url or file.note, (name, file.path)
            if file.url:
                assert file.url.startswith("https://"), file.url
                assert "/main/" not in file.url and "/master/" not in file.url, file.url  # pinned, not a branch
                assert " " not in file.url, file.url  # percent-encoded


def test_every_declared_hash_equals_the_shared_file(shared_data: Path):
    problems = []
    checked = 0
    for name, file in all_declared():
        if file.path in NOT_SHARED:
            continue
        problem = check_file(shared_data / file.path, file)
        checked += 1
        if problem:
            problems.append(f"{name}: {problem}")
    assert not problems, "\n".join(problems[:20])
    assert checked > 800


def test_gzipped_files_are_the_source_bytes_compressed_reproducibly(shared_data: Path):
    gzipped = [file for _, file in all_declared() if file.gzipped]
    assert gzipped
    for file in gzipped:
        raw = (shared_data / file.path).read_bytes()
        unpacked = gzip.decompress(raw)
        assert hashlib.sha256(unpacked).hexdigest() == file.unpacked_sha256, file.path
        assert len(unpacked) == file.unpacked_size, file.path
        if "another gzip" not in file.note:  # the declaration says when a shared file was compressed elsewhere
            assert gzip_bytes(unpacked) == raw, file.path


def test_a_path_declared_twice_declares_the_same_bytes():
    by_path: dict[str, DataFile] = {}
    for _, file in all_declared():
        earlier = by_path.setdefault(file.path, file)
        assert (earlier.sha256, earlier.size) == (file.sha256, file.size), file.path


def test_total_size_counts_an_alternative_once():
    one = DataFile("a/x", "0" * 64, 10, one_of="g")
    two = DataFile("a/y", "1" * 64, 5, one_of="g")
    assert total_size([one, two, DataFile("a/z", "2" * 64, 1)]) == 11


def test_a_bad_manifest_names_the_file_and_entry(tmp_path: Path):
    from negkit.errors import InputFormatError

    manifest = tmp_path / "files.json"
    manifest.write_text('{"files": [{"path": "../x", "sha256": "' + "0" * 64 + '", "size": 1}]}')
    with pytest.raises(InputFormatError, match=r"files\.json: entry 1: path '\.\./x' must be relative"):
        declared_files(manifest)
    manifest.write_text('{"files": [{"path": "x", "sha256": "ABC", "size": 1}]}')
    with pytest.raises(InputFormatError, match="entry 1: sha256 'ABC' is not 64 lowercase hex digits"):
        declared_files(manifest)


def test_a_benchmark_declares_its_data_source_and_bibtex_beside_its_module(tmp_path):
    from negkit.kit.suites import DataSource

    entry = {"path": "bench/items.jsonl", "sha256": "0" * 64, "size": 3, "url": "https://example.org/items.jsonl"}
    manifest = tmp_path / "bench_files.json"
    declaration = {"how_to_get": "get it", "licence": "CC0", "citation": "doe2024", "files": [entry]}
    manifest.write_text(json.dumps(declaration))
    (tmp_path / "bench.bib").write_text("@misc{doe2024,\n  title = {Bench}\n}\n")
    source = DataSource.declared(tmp_path / "bench.py")
    assert (source.folder, source.how_to_get, source.licence, source.citation) == ("bench", "get it", "CC0", "doe2024")
    assert [file.path for file in source.files] == ["bench/items.jsonl"]
    assert source.bibtex == "@misc{doe2024,\n  title = {Bench}\n}"
    assert DataSource.declared(manifest) == source
    manifest.write_text(json.dumps({**declaration, "licence": ""}))
    with pytest.raises(InputFormatError, match="bench_files.json: 'licence': expected a non-empty string, found ''"):
        DataSource.declared(tmp_path / "bench.py")
    other = {**entry, "path": "other/items.jsonl"}
    manifest.write_text(json.dumps({**declaration, "files": [entry, other]}))
    with pytest.raises(InputFormatError, match="'folder' is needed"):
        DataSource.declared(manifest)
    manifest.write_text(json.dumps({**declaration, "files": [entry, other], "folder": "bench"}))
    assert DataSource.declared(manifest).folder == "bench"
