"""The model catalogue (negkit.models.catalogue), fetching its files from wheels as data (negkit.models.fetch),
``--model NAME`` and ``negkit eval --list-models``; no network: the wheels are built here."""

from __future__ import annotations

import hashlib
import re
import zipfile
from dataclasses import replace

import pytest

from negkit.errors import NegkitError
from negkit.models import catalogue, fetch
from negkit.models.catalogue import CATALOGUE, catalogue_model, models_table


@pytest.fixture(autouse=True)
def _cache(tmp_path, monkeypatch):
    monkeypatch.setenv("NEGKIT_CACHE", str(tmp_path / "cache"))


def test_the_catalogue_is_complete_and_pinned():
    assert [model.name for model in CATALOGUE] == [
        "smollm2-135m-instruct",
        "gemma3-270m",
        "qwen2.5-coder-0.5b-instruct",
        "qwen2.5-coder-1.5b-instruct",
    ]
    assert catalogue_model("default").name == "smollm2-135m-instruct"
    for model in CATALOGUE:
        assert re.fullmatch(r"[0-9a-f]{64}", model.sha256) and model.sha256_source in ("shipped", "recorded")
        assert model.packages and all(re.fullmatch(r"\d+(\.\d+)+", version) for _name, version in model.packages)
        assert model.licence and model.hub_original and model.file_name.endswith(".gguf")
    assert [model.parameters for model in CATALOGUE] == sorted(model.parameters for model in CATALOGUE)
    assert catalogue_model("gemma3-270m").chat_template is None  # the base model
    assert len(catalogue_model("qwen2.5-coder-1.5b-instruct").packages) == 22
    with pytest.raises(NegkitError, match="no catalogue model is called 'gemma-270m'.*list-models"):
        catalogue_model("gemma-270m")


def _fake_model(tmp_path, parts: list[bytes], shipped: str | None = None):
    """A catalogue entry for a small made-up file split over wheels built here (one part each, plus other members
    that must not be taken), and the wheels' folder."""
    wheels = tmp_path / "cache" / "models" / "fake" / "wheels"
    wheels.mkdir(parents=True)
    whole = b"".join(parts)
    packages = []
    for number, part in enumerate(parts, start=1):
        package = f"fake-model-part{number}"
        with zipfile.ZipFile(wheels / f"fake_model_part{number}-1.0-py3-none-any.whl", "w") as wheel:
            wheel.writestr(f"fake_model_part{number}/__init__.py", "raise SystemExit('never imported')\n")
            wheel.writestr(f"fake_model_part{number}/data/model.gguf.part{number:02d}", part)
            wheel.writestr(f"fake_model_part{number}-1.0.dist-info/METADATA", "Name: x\n")
        packages.append((package, "1.0"))
    metadata = None
    if shipped is not None:
        with zipfile.ZipFile(wheels / "fake_model-1.0-py3-none-any.whl", "w") as wheel:
            wheel.writestr("fake_model/data/SHA256SUMS", f"{shipped}  model.gguf\n")
            wheel.writestr("fake_model/data/NOTICE.md", "notice\n")
        metadata = ("fake-model", "1.0")
    model = replace(
        CATALOGUE[1],
        name="fake",
        packages=tuple(packages),
        member=r"^fake_model_part\d/data/model\.gguf\.part\d\d$",
        file_name="model.gguf",
        sha256=hashlib.sha256(whole).hexdigest(),
        file_bytes=len(whole),
        metadata_package=metadata,
    )
    return model, whole


@pytest.fixture
def fake(tmp_path, monkeypatch):
    def install(parts, shipped=None):
        model, whole = _fake_model(tmp_path, parts, shipped)
        monkeypatch.setattr(catalogue, "CATALOGUE", (*CATALOGUE, model))
        monkeypatch.setattr(fetch, "download_wheel", _no_download)
        return model, whole

    return install


def _no_download(package, version, folder, label, progress=None):
    found = fetch._wheel_in(folder, package, version)
    if found is None:
        raise AssertionError(f"{package}=={version} would be downloaded")
    return found


def test_fetch_joins_the_parts_in_order_checks_the_hash_and_is_idempotent(fake):
    model, whole = fake([b"GGUF" + b"a" * 100, b"b" * 50, b"c" * 7], shipped=None)
    lines: list[str] = []
    path = fetch.fetch_model("fake", progress=lines.append)
    assert path == model.cached_file and path.read_bytes() == whole
    assert not (model.folder / "wheels").exists()  # deleted once the file is whole
    assert any("joining 3 parts" in line for line in lines) and "ready" in lines[-1]
    lines.clear()
    assert fetch.fetch_model("fake", progress=lines.append) == path  # nothing is downloaded again
    assert lines == [f"fake: present ({path}, sha256 {model.sha256[:16]}...)"]
    assert catalogue.model_file(model) == path


def test_a_wrong_file_is_never_kept(fake, monkeypatch):
    model, _whole = fake([b"GGUF" + b"a" * 10, b"b" * 10])
    monkeypatch.setattr(catalogue, "CATALOGUE", (*CATALOGUE, replace(model, sha256="0" * 64)))
    with pytest.raises(NegkitError, match="the joined file is not the catalogue's.*nothing was kept"):
        fetch.fetch_model("fake", progress=lambda line: None)
    assert not list(model.folder.glob("model.gguf*"))
    assert (model.folder / "wheels").is_dir()  # the downloads stay for the next try


def test_the_shipped_hash_is_checked_and_the_notes_kept(fake):
    model, _whole = fake([b"GGUF" + b"x" * 10], shipped="f" * 64)
    with pytest.raises(NegkitError, match="its SHA256SUMS gives f{64} for model.gguf"):
        fetch.fetch_model("fake", progress=lambda line: None)
    assert (model.folder / "NOTICE.md").read_text() == "notice\n"


def test_a_wheel_without_its_part_is_an_error(fake, tmp_path):
    model, _whole = fake([b"GGUF" + b"x" * 10])
    with zipfile.ZipFile(next((model.folder / "wheels").glob("*.whl")), "w") as wheel:
        wheel.writestr("other/data/readme.txt", "no part here")
    with pytest.raises(NegkitError, match="expected one member matching"):
        fetch.fetch_model("fake", progress=lambda line: None)


def test_list_models_shows_sizes_licences_templates_and_presence(capsys):
    from negkit.cli import main

    assert main(["eval", "--list-models"]) == 0
    out = capsys.readouterr().out
    for model in CATALOGUE:
        assert model.name in out
    assert "Gemma Terms of Use" in out and "Apache-2.0" in out and "1,117 MB" in out and "1.5B" in out
    assert re.search(r"gemma3-270m .* none .* no \(bash scripts/get_models.sh gemma3-270m\)", out)
    assert "4-bit quantization" in out and models_table() in out


def test_a_model_not_fetched_yet_says_how_to_get_it():
    from negkit.models.checks import check_model_spec, did_you_mean
    from negkit.models.registry import load_model

    with pytest.raises(
        NegkitError, match="not on this machine yet.*bash scripts/get_models.sh qwen2.5-coder-0.5b-instruct"
    ):
        load_model("qwen2.5-coder-0.5b-instruct")
    with pytest.raises(NegkitError, match="get_models.sh gemma3-270m"):
        check_model_spec("gemma3-270m")
    assert did_you_mean("gemma3-270") == " (did you mean 'gemma3-270m'?)"
    assert did_you_mean("gemma3-270m") == ""


def test_fetch_command_line(fake, capsys):
    model, _whole = fake([b"GGUF" + b"z" * 20])
    assert fetch.main(["fake"]) == 0
    assert model.cached_file.is_file() and "fake: ready" in capsys.readouterr().err
    assert fetch.main(["no-such-model"]) == 2
    assert "negkit: error: no catalogue model is called 'no-such-model'" in capsys.readouterr().err
