"""TIND privacy: `negkit eval` never writes decrypted TIND sentences inside a git working tree unless told to."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tiny_models import save_tiny_causal, synthetic_truth_items

from negkit.benchmarks.tind.data import write_tind_jsonl
from negkit.cli import main
from negkit.io.privacy import redact_record, text_sha256


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    root = tmp_path_factory.mktemp("privacy")
    items = synthetic_truth_items(groups_per_pattern=1)
    write_tind_jsonl(items, root / "test.jsonl", extended=True)
    return root, save_tiny_causal(root / "model"), items


def _eval(model, data, out, capsys, *extra):
    capsys.readouterr()
    status = main(
        [
            "eval",
            "--model",
            f"hf:{model}",
            "--tasks",
            "tind",
            "--data",
            str(data / "test.jsonl"),
            "--out",
            str(out),
            "--no-progress",
            *extra,
        ]
    )
    captured = capsys.readouterr()
    assert status == 0, captured.err
    return captured


def _samples(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_inside_a_git_tree_samples_carry_hashes_not_sentences(setup, tmp_path, capsys):
    data, model, items = setup
    repository = tmp_path / "checkout"
    (repository / ".git").mkdir(parents=True)
    out = repository / "negkit-runs" / "main"
    captured = _eval(model, data, out, capsys)
    assert "written as SHA-256 hashes (TIND stays private" in captured.err
    for path in out.rglob("*"):
        if path.is_file():
            text = path.read_text(encoding="utf-8", errors="replace")
            assert not any(item.sentence in text for item in items), f"a TIND sentence leaked into {path}"
    samples = _samples(out / "tind.samples.jsonl")
    assert [s["sentence_sha256"] for s in samples] == [text_sha256(item.sentence) for item in items]
    assert all("sentence" not in s and "prompt" not in s and "prompt_sha256" in s for s in samples)
    results = json.loads((out / "tind.results.json").read_text())
    assert results["privacy"]["redacted_fields"] == ["sentence", "prompt"]

    # the redacted file still scores, with the same metrics
    capsys.readouterr()
    assert main(["score", "tind", str(out / "tind.samples.jsonl"), "--json"]) == 0
    scored = json.loads(capsys.readouterr().out)
    assert scored["all"]["accuracy"] == results["metrics"]["all"]["accuracy"]


def test_allow_in_git_writes_sentences(setup, tmp_path, capsys):
    data, model, items = setup
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    out = tmp_path / "repo" / "run"
    captured = _eval(model, data, out, capsys, "--allow-in-git")
    assert "SHA-256" not in captured.err
    assert [s["sentence"] for s in _samples(out / "tind.samples.jsonl")] == [item.sentence for item in items]


def test_outside_git_samples_hold_the_sentences(setup, tmp_path, capsys):
    data, model, items = setup
    captured = _eval(model, data, tmp_path / "run", capsys)
    assert "SHA-256" not in captured.err
    assert [s["sentence"] for s in _samples(tmp_path / "run" / "tind.samples.jsonl")] == [i.sentence for i in items]


def test_redact_record_reaches_into_runs():
    record = {"item_id": "a", "prompt": ["x", "y"], "runs": {"seed-1": {"prompt": "z", "prediction": "c"}}}
    redacted = redact_record(record, ("prompt",))
    assert redacted == {
        "item_id": "a",
        "prompt_sha256": [text_sha256("x"), text_sha256("y")],
        "runs": {"seed-1": {"prompt_sha256": text_sha256("z"), "prediction": "c"}},
    }


def test_convert_refuses_inside_git(tmp_path, capsys):
    from tind_support import public_zip

    (tmp_path / ".git").mkdir()
    status = main(["tind", "convert", str(public_zip()), str(tmp_path / "out.jsonl")])
    captured = capsys.readouterr()
    assert status == 2 and captured.out == "" and "inside the git working tree" in captured.err
    assert not (tmp_path / "out.jsonl").exists()


def test_generated_text_is_private_inside_a_git_tree(setup, tmp_path, capsys):
    """Issue 32, finding 7: the tind-generate task's model output (which may restate the statement) was written
    as it is inside a git working tree."""
    data, model, items = setup
    repository = tmp_path / "checkout"
    (repository / ".git").mkdir(parents=True)
    out = repository / "run"
    capsys.readouterr()
    assert (
        main(
            [
                "eval",
                "--model",
                f"hf:{model}",
                "--tasks",
                "tind-generate",
                "--data",
                str(data / "test.jsonl"),
                "--out",
                str(out),
                "--no-progress",
            ]
        )
        == 0
    )
    samples = _samples(out / "tind-generate.samples.jsonl")
    assert all("output" not in s and len(s["output_sha256"]) == 64 for s in samples)
    assert json.loads((out / "tind-generate.results.json").read_text())["privacy"]["redacted_fields"] == [
        "sentence",
        "prompt",
        "output",
    ]


def test_generated_text_stays_out_of_the_run_store_and_resumes(setup, tmp_path, capsys, monkeypatch):
    """Issue 32, finding 7 (the run store): a model that restates the statement wrote the decrypted sentence into
    ``requests.jsonl`` inside a git working tree. Now no file of the run folder holds a sentence or any generated
    text, and a resumed run reads its answers back (sealed in the store) and gives identical results."""
    from negkit.models.hf_causal import HFCausalLM

    data, model, items = setup
    sentences = sorted({item.sentence for item in items}, key=len, reverse=True)
    original, generated, calls = HFCausalLM.generate, {}, []

    def restating(self, contexts, max_new_tokens=8, stop=()):  # the tiny model's text, after the statement
        calls.append(len(contexts))
        tails = original(self, contexts, max_new_tokens, stop)
        texts = [f"{next(s for s in sentences if s in c)} So it is{tail}" for c, tail in zip(contexts, tails)]
        generated.update(zip(contexts, texts))
        return texts

    monkeypatch.setattr(HFCausalLM, "generate", restating)
    repository = tmp_path / "checkout"
    (repository / ".git").mkdir(parents=True)
    out = repository / "run"
    command = ["--tasks", "tind-generate", "--data", str(data / "test.jsonl"), "--out", str(out), "--no-progress"]
    capsys.readouterr()
    assert main(["eval", "--model", f"hf:{model}", *command]) == 0, capsys.readouterr().err
    assert calls and len(generated) == len({item.sentence for item in items})
    for path in out.rglob("*"):
        if path.is_file():
            text = path.read_text(encoding="utf-8", errors="replace")
            assert not any(sentence in text for sentence in sentences), f"a TIND sentence leaked into {path}"
            assert not any(output in text for output in generated.values()), f"generated text leaked into {path}"
    samples_file = out / "tind-generate.samples.jsonl"
    first_samples = samples_file.read_bytes()
    first = json.loads((out / "tind-generate.results.json").read_text())
    assert {s["output_sha256"] for s in _samples(samples_file)} == {text_sha256(t) for t in generated.values()}
    assert first["privacy"]["run_store"] == "generated text sealed"

    calls.clear()
    assert main(["eval", "--model", f"hf:{model}", *command]) == 0, capsys.readouterr().err
    again = json.loads((out / "tind-generate.results.json").read_text())
    assert calls == []  # every answer came from the store
    assert again["requests"]["computed"] == 0 and again["requests"]["from_store"] == again["requests"]["unique"]
    assert samples_file.read_bytes() == first_samples and again["metrics"] == first["metrics"]
