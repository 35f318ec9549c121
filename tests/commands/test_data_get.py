"""``negkit data get`` against a loopback mirror of ``../shared/data`` (tests/data_server.py): a fresh cache filled,
a second get downloading nothing, and every way a download goes wrong leaving nothing wrong in the cache."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from data_server import serve

from negkit.cli import main
from negkit.commands.data import all_data_sets, data_get, resolve_data_sets
from negkit.errors import NegkitError
from negkit.kit.data.declared import DataFile, check_file, gzip_bytes, sha256_of
from negkit.kit.data.fetch import PARTIAL_FOLDER, fetch_file
from negkit.kit.data.locate import locate_dataset
from negkit.kit.suites.registry import all_suites

REPO = Path(__file__).resolve().parents[2]


def _names(*names: str) -> list[DataFile]:
    return [file for data_set in resolve_data_sets(names) for file in data_set.files]


def _leftovers(root: Path, files: list[DataFile]) -> list[str]:
    """Files under ``root`` that are not a declared file with its declared bytes (partial downloads aside)."""
    declared = {file.path: file for file in files}
    wrong = []
    for path in root.rglob("*"):
        if path.is_dir() or PARTIAL_FOLDER in path.relative_to(root).parts:
            continue
        rel = path.relative_to(root).as_posix()
        if rel not in declared or check_file(path, declared[rel]):
            wrong.append(rel)
    return wrong


@pytest.fixture(autouse=True)
def away_from_the_checkout(tmp_path, monkeypatch):
    """Run where no ../shared/data is beside the working directory, as on a user's machine (a data set found
    there would not be fetched)."""
    monkeypatch.chdir(tmp_path)


@pytest.fixture
def mirror(shared_data):
    with serve(shared_data) as server:
        yield server


def test_get_fills_the_cache_and_a_second_get_downloads_nothing(mirror, tmp_path, monkeypatch, capsys):
    cache = tmp_path / "cache"
    monkeypatch.setenv("NEGKIT_DATA_CACHE", str(cache))
    monkeypatch.setenv("NEGKIT_DATA_MIRROR", mirror.url)
    monkeypatch.delenv("NEGKIT_DATA", raising=False)
    assert main(["data", "get", "scone", "nan-nli", "tind"]) == 0
    err = capsys.readouterr().err
    assert "scone: 14 file(s), 1.7 MB from mirror" in err and "licence: CC0 1.0" in err and "cite: she2023" in err
    files = _names("scone", "nan-nli")
    for file in files:
        assert check_file(cache / file.path, file) is None
    # TIND: the authors' full zip is not on this mirror; its alternative, the public half, is
    assert (cache / "tind" / "raw-public.zip").is_file() and not (
        cache / "tind" / "This-is-not-a-dataset_RAW_DATA.zip"
    ).exists()
    assert mirror.downloads().count("tind/This-is-not-a-dataset_RAW_DATA.zip") == 1
    mirror.log.clear()
    assert main(["data", "get", "scone", "nan-nli", "tind"]) == 0
    assert mirror.log == []  # nothing downloaded the second time
    assert "0 file(s) downloaded" in capsys.readouterr().out


def test_a_corrupted_byte_is_refused_naming_both_hashes(mirror, tmp_path):
    file = _names("nan-nli")[0]
    mirror.corrupt.add(file.path)
    with pytest.raises(NegkitError) as error:
        data_get(["nan-nli"], data=tmp_path, mirror=mirror.url, say=lambda m: None)
    message = str(error.value)
    assert file.path in message and file.sha256 in message and "does not match" in message
    assert not (tmp_path / file.path).exists() and _leftovers(tmp_path, [file]) == []


def test_a_cut_file_is_refused(mirror, tmp_path):
    file = _names("nan-nli")[0]
    mirror.cut.add(file.path)
    with pytest.raises(NegkitError, match="nan-nli/nan.csv"):
        data_get(["nan-nli"], data=tmp_path, mirror=mirror.url, say=lambda m: None)
    assert not (tmp_path / file.path).exists() and _leftovers(tmp_path, [file]) == []


def test_a_server_stopping_mid_file_leaves_a_partial_that_the_next_get_resumes(mirror, tmp_path):
    file = next(f for f in _names("condaqa") if f.path.endswith("condaqa_dev.json"))
    mirror.stop_after[file.path] = 500_000
    with pytest.raises(NegkitError, match="condaqa/condaqa_dev.json"):
        data_get(["condaqa"], data=tmp_path, mirror=mirror.url, say=lambda m: None)
    assert not (tmp_path / file.path).exists()
    kept = (tmp_path / PARTIAL_FOLDER / file.path).stat().st_size  # what arrived, to the last whole chunk
    assert 0 < kept <= 500_000
    mirror.log.clear()
    data_get(["condaqa"], data=tmp_path, mirror=mirror.url, say=lambda m: None)
    assert (file.path, f"bytes={kept}-") in mirror.log  # resumed, not started over
    assert check_file(tmp_path / file.path, file) is None
    assert _leftovers(tmp_path, _names("condaqa")) == []


def test_two_concurrent_gets_fetch_each_file_once(mirror, tmp_path):
    env = {
        "PYTHONPATH": str(REPO / "src"),
        "NEGKIT_DATA_MIRROR": mirror.url,
        "NEGKIT_DATA_CACHE": str(tmp_path / "cache"),
        "PATH": "/usr/bin:/bin",
    }
    command = [sys.executable, "-m", "negkit", "data", "get", "scone", "negnli"]
    runs = [subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE) for _ in range(2)]
    outputs = [run.communicate(timeout=300) for run in runs]
    assert [run.returncode for run in runs] == [0, 0], outputs
    files = _names("scone", "negnli")
    assert sorted(mirror.downloads()) == sorted(file.path for file in files)  # each file once
    assert _leftovers(tmp_path / "cache", files) == []


def test_a_gzipped_file_from_its_source_url_is_stored_as_declared(shared_data, tmp_path):
    """The source serves the uncompressed bytes; negkit checks them, then stores the declared gzip bytes."""
    declared = next(f for f in _names("blimp-guard") if f.gzipped)
    import gzip

    source = tmp_path / "source"
    source.mkdir()
    (source / "x.jsonl").write_bytes(gzip.decompress((shared_data / declared.path).read_bytes()))
    with serve(source) as server:
        file = DataFile(
            declared.path,
            declared.sha256,
            declared.size,
            f"{server.url}/x.jsonl",
            declared.unpacked_sha256,
            declared.unpacked_size,
        )
        fetch_file(file, tmp_path / "root")
    assert sha256_of(tmp_path / "root" / declared.path) == declared.sha256
    assert gzip_bytes(b"") == gzip_bytes(b"")


def test_without_a_public_url_the_error_says_to_use_a_mirror(tmp_path):
    file = DataFile("condaqa/condaqa_test.json", "0" * 64, 1, note="rebuilt from five files")
    with pytest.raises(
        NegkitError, match="no public URL serves this file \\(rebuilt from five files\\); fetch it from a mirror"
    ):
        fetch_file(file, tmp_path)


def test_verify_names_a_changed_and_a_cut_file(mirror, tmp_path, capsys):
    data_get(["neqa", "nan-nli"], data=tmp_path, mirror=mirror.url, say=lambda m: None)
    neqa = tmp_path / "neqa" / "neqa.csv"
    neqa.chmod(0o644)
    neqa.write_bytes(neqa.read_bytes()[:-1] + b"!")
    nan = tmp_path / "nan-nli" / "nan.csv"
    nan.chmod(0o644)
    nan.write_bytes(nan.read_bytes()[:100])
    assert main(["data", "verify", "neqa", "nan-nli", "--data", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert f"neqa\tCHANGED\t{neqa}: sha256 " in out
    assert f"nan-nli\tCHANGED\t{nan}: 100 bytes, expected 52317" in out


def test_list_shows_every_benchmark_and_corpus(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["data", "list"]) == 0
    out = capsys.readouterr().out
    rows = {line.split()[0]: line for line in out.splitlines()[1:]}
    assert len([s for s in all_data_sets() if s.kind == "benchmark"]) >= 21
    assert set(rows) == {s.name for s in all_data_sets()}
    assert "missing (negkit data get scone)" in rows["scone"] and "CC0" in rows["scone"]
    assert {"cd-sco", "bioscope", "sfu-review", "norec-neg"} <= set(rows)


def test_a_missing_data_set_is_one_line_with_the_command(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("NEGKIT_DATA", raising=False)
    assert main(["eval", "--model", "random", "--tasks", "scone", "--out", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].endswith("get it with: negkit data get scone"), err


def _results(run: Path) -> dict:
    return json.loads((run / "results.json").read_text())["results"]


def test_get_all_from_the_mirror_then_eval_equals_the_shared_data(mirror, shared_data, tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    monkeypatch.delenv("NEGKIT_DATA", raising=False)
    monkeypatch.setenv("NEGKIT_DATA_CACHE", str(cache))
    assert main(["data", "get", "--all", "--mirror", mirror.url]) == 0
    mirror.log.clear()
    assert main(["data", "get", "--all", "--mirror", mirror.url]) == 0
    assert mirror.log == []
    everything = [file for data_set in all_data_sets() for file in data_set.files]
    assert _leftovers(cache, everything) == []
    # every benchmark whose files are declared (Thunder-NUBench and MNLI-neg are built or fetched by name only)
    declared = [suite.main_task for suite in all_suites() if suite.data.files]
    assert len(declared) >= 23
    tasks = ",".join(declared)
    common = ["eval", "--model", "random", "--tasks", tasks, "--limit", "40", "--no-progress"]
    assert main([*common, "--data", str(cache), "--out", str(tmp_path / "from-cache")]) == 0
    assert main([*common, "--data", str(shared_data), "--out", str(tmp_path / "from-shared")]) == 0
    assert _results(tmp_path / "from-cache") == _results(tmp_path / "from-shared")


def test_eval_download_fetches_only_what_is_missing(mirror, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no ../shared/data from here
    monkeypatch.delenv("NEGKIT_DATA", raising=False)
    monkeypatch.setenv("NEGKIT_DATA_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("NEGKIT_DATA_MIRROR", mirror.url)
    command = ["eval", "--model", "random", "--tasks", "nan-nli", "--no-progress", "--download"]
    assert main([*command, "--out", str(tmp_path / "one")]) == 0
    assert mirror.downloads() == ["nan-nli/nan.csv"]
    assert main([*command, "--out", str(tmp_path / "two")]) == 0
    assert mirror.downloads() == ["nan-nli/nan.csv"]  # found in the cache the second time


def test_mnli_neg_is_built_from_the_mnli_zip(tmp_path):
    """A stand-in MNLI zip (three hand-written pairs in the release's JSON Lines layout) served on loopback."""
    import hashlib
    import zipfile

    from negkit.benchmarks.nan_nli.mnli_neg_build import DEV_MATCHED, MNLI_ZIP, build_mnli_neg
    from negkit.commands.data import build_files
    from negkit.kit.suites import get_suite
    from negkit.kit.suites.description import DataSource

    assert get_suite("mnli-neg").data.inputs == (MNLI_ZIP,) and MNLI_ZIP.url.startswith("https://")
    rows = [
        {
            "gold_label": "contradiction",
            "sentence1": "He did not go.",
            "sentence2": "He went.",
            "pairID": "1n",
            "genre": "fiction",
        },
        {
            "gold_label": "entailment",
            "sentence1": "She sings.",
            "sentence2": "She makes music.",
            "pairID": "2e",
            "genre": "fiction",
        },
        {
            "gold_label": "neutral",
            "sentence1": "Nobody came early.",
            "sentence2": "They came late.",
            "pairID": "3n",
            "genre": "travel",
        },
    ]
    served = tmp_path / "served" / "mnli-neg"
    served.mkdir(parents=True)
    with zipfile.ZipFile(served / "multinli_1.0.zip", "w") as archive:
        archive.writestr(DEV_MATCHED, "".join(json.dumps(row) + "\n" for row in rows))
    data = (served / "multinli_1.0.zip").read_bytes()
    with serve(tmp_path / "served") as server:
        stand_in = DataFile(MNLI_ZIP.path, hashlib.sha256(data).hexdigest(), None, f"{server.url}/{MNLI_ZIP.path}")
        source = DataSource("mnli-neg", "", inputs=(stand_in,), build=build_mnli_neg)
        report = build_files(source, [], tmp_path / "root")
    assert report.failed == []
    written = [json.loads(line) for line in (tmp_path / "root" / "mnli-neg" / "mnli_neg.jsonl").open()]
    assert [row["pairID"] for row in written] == ["1n", "3n"]  # the premises with a negation cue


def test_a_mirror_may_hold_a_gz_file_compressed_otherwise(shared_data, tmp_path):
    """Same content, other gzip bytes (level 1): accepted by its unpacked hash; other content is refused."""
    import gzip

    declared = next(f for f in _names("blimp-guard") if f.gzipped)
    content = gzip.decompress((shared_data / declared.path).read_bytes())
    served = tmp_path / "served" / declared.path
    served.parent.mkdir(parents=True)
    served.write_bytes(gzip.compress(content, compresslevel=1))
    with serve(tmp_path / "served") as server:
        fetch_file(declared, tmp_path / "root", mirror=server.url)
        assert check_file(tmp_path / "root" / declared.path, declared) is None
        served.write_bytes(gzip.compress(content + b"x", compresslevel=1))
        with pytest.raises(NegkitError, match="unpacked sha256"):
            fetch_file(declared, tmp_path / "other", mirror=server.url)
    assert not (tmp_path / "other" / declared.path).exists()


def test_data_path_prints_where_a_data_set_is(mirror, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("NEGKIT_DATA", raising=False)
    monkeypatch.setenv("NEGKIT_DATA_CACHE", str(tmp_path / "cache"))
    assert main(["data", "path", "negation-nli"]) == 2
    assert capsys.readouterr().err.strip().endswith("get it with: negkit data get negation-nli")
    assert main(["data", "get", "negation-nli", "--mirror", mirror.url]) == 0
    capsys.readouterr()
    assert main(["data", "path", "negnli"]) == 0
    assert capsys.readouterr().out.strip() == str(tmp_path / "cache" / "negation-nli")


def test_a_get_that_fails_leaves_no_empty_folder_to_hide_a_whole_copy(tmp_path, monkeypatch, shared_data):
    """A mirror that has nothing (as an unreachable server): the cache keeps no empty data set folder, and an empty
    folder left there by anything else is not taken for the data set: ../shared/data's whole copy is found."""
    empty = tmp_path / "empty-mirror"
    empty.mkdir()
    cache = tmp_path / "cache"
    monkeypatch.setenv("NEGKIT_DATA_CACHE", str(cache))
    monkeypatch.delenv("NEGKIT_DATA", raising=False)
    with pytest.raises(NegkitError, match="could not get: scone: scone/"):
        data_get(["scone"], data=cache, mirror=str(empty), say=lambda message: None)
    assert not (cache / "scone").exists()
    checkout = tmp_path / "work" / "negkit"
    checkout.mkdir(parents=True)
    (tmp_path / "work" / "shared").symlink_to(shared_data.parent)
    monkeypatch.chdir(checkout)
    (cache / "scone").mkdir(parents=True)  # e.g. made by hand, or by an older negkit
    assert locate_dataset("scone") == Path("..") / "shared" / "data" / "scone"


def test_get_skips_a_data_set_found_whole_elsewhere(tmp_path, monkeypatch, shared_data):
    checkout = tmp_path / "work" / "negkit"
    checkout.mkdir(parents=True)
    (tmp_path / "work" / "shared").symlink_to(shared_data.parent)
    monkeypatch.chdir(checkout)
    monkeypatch.setenv("NEGKIT_DATA_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("NEGKIT_DATA", raising=False)
    said: list[str] = []
    report = data_get(["scone", "nan-nli"], mirror=str(tmp_path / "no-mirror"), say=said.append)
    assert report.fetched == [] and not (tmp_path / "cache" / "scone").exists()
    assert "scone: found in ../shared/data, nothing to get" in said
