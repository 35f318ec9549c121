"""``negkit export lm-eval``: the YAML files and utils the Harness loads, checked without the Harness (and with it,
when ``lm_eval`` is importable): same items, prompts, answer strings and gold answers as negkit, TIND kept private."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
from conftest import NUBENCH_FIXTURE, REPO_ROOT

from negkit.cli import main
from negkit.commands.export import export_lm_eval, harness_names
from negkit.errors import NegkitError
from negkit.kit.suites import get_task

FIXTURE = NUBENCH_FIXTURE
SHARED = REPO_ROOT / ".." / "shared" / "data"
yaml = pytest.importorskip("yaml")


def read_yaml(path: Path) -> dict:
    """A task YAML as the Harness reads it (``!function`` kept as its dotted name)."""

    class Loader(yaml.SafeLoader):
        pass

    Loader.add_constructor("!function", lambda loader, node: "!function " + loader.construct_scalar(node))
    return yaml.load(path.read_text(encoding="utf-8"), Loader=Loader)


def load_utils(folder: Path):
    """The exported ``utils.py``, imported from the export folder as the Harness does."""
    spec = importlib.util.spec_from_file_location(f"negkit_export_utils_{abs(hash(folder))}", folder / "utils.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_utils_do_not_import_negkit():
    from negkit.commands.export import exportable, utils_text

    source = utils_text(list(exportable().values()))  # the shared part, every generated loader, every suite's code
    imports = [line.split()[1] for line in source.splitlines() if line.startswith(("import ", "from "))]
    assert not [name for name in imports if name.startswith("negkit")]  # it runs where negkit is not installed


def test_truth_prompts_agree_with_the_utils():
    from negkit.benchmarks.tind.harness_utils import TIND_CHAT_QUESTION, TIND_QUESTION
    from negkit.benchmarks.tind.task import CHAT_QUESTION, QUESTION

    assert (TIND_CHAT_QUESTION, TIND_QUESTION) == (CHAT_QUESTION, QUESTION)


def test_nubench_export_structure_and_docs(tmp_path):
    pytest.importorskip("datasets")
    out = tmp_path / "export"
    manifest = export_lm_eval(["nubench"], out, data=str(FIXTURE), limit=5, num_fewshot=2)
    assert manifest["tasks"]["nubench"]["count"] == 5 and manifest["tasks"]["nubench"]["seeds"] == [
        42,
        1234,
        3000,
        5000,
        7000,
    ]
    config = read_yaml(out / "negkit_nubench.yaml")
    assert config["task"] == "negkit_nubench" and config["custom_dataset"] == "!function utils.load_nubench"
    assert config["output_type"] == "multiple_choice" and config["target_delimiter"] == " "
    assert (
        config["num_fewshot"] == 2 and config["fewshot_split"] == "validation" and config["fewshot_delimiter"] == "\n\n"
    )
    assert [metric["metric"] for metric in config["metric_list"]] == ["acc_norm", "acc"]
    docs = load_utils(out).load_nubench()
    task = get_task("nubench")
    items = task.load(str(FIXTURE), "test", 5, 0).items
    requests = task.requests(items)
    test = list(docs["test"])
    assert [doc["item_id"] for doc in test] == [item.item_id for item in items]
    for doc, item_requests in zip(test, requests):
        assert [(doc["prompt"], " " + choice) for choice in doc["choices"]] == [
            (request.context, request.continuation) for request in item_requests
        ]
        assert doc["gold"] == 0
    fewshot = get_task("nubench", num_fewshot=2)
    fewshot.load(str(FIXTURE), "test", 5, 0)
    assert [doc["item_id"] for doc in docs["validation"]] == [item.item_id for item in fewshot.pool]
    assert "--seed 0,1234,1234,42" in (out / "README.md").read_text()


def test_hf_layout_tind_export_keeps_sentences_out(tmp_path):
    pytest.importorskip("datasets")
    from tiny_models import synthetic_truth_items

    from negkit.benchmarks.tind.data import write_tind_jsonl

    data = tmp_path / "tind-hf"
    data.mkdir()
    items = synthetic_truth_items(groups_per_pattern=2)
    write_tind_jsonl(items, data / "test.jsonl", extended=True)
    out = tmp_path / "export"
    export_lm_eval(["tind"], out, data=str(data))
    written = "".join(path.read_text(encoding="utf-8") for path in out.iterdir() if path.name != "utils.py")
    assert not any(item.sentence in written for item in items)  # ids and hashes only
    for name in harness_names()["tind"]:
        config = read_yaml(out / f"{name}.yaml")
        assert config["doc_to_choice"] == ["True", "False"] and config["target_delimiter"] == ""
    rows = list(load_utils(out).load_tind()["test"])
    assert [row["item_id"] for row in rows] == [item.item_id for item in items]
    assert [row["gold"] for row in rows] == [0 if item.label else 1 for item in items]
    assert rows[0]["prompt_plain"] == f"Is the following statement True or False? {items[0].sentence.strip()}"


def test_the_zip_is_read_in_place_and_checked(tmp_path, monkeypatch):
    pytest.importorskip("datasets")
    zip_path = SHARED / "tind" / "raw-public.zip"
    if not zip_path.is_file():
        pytest.skip("raw-public.zip not found in ../shared/data/tind")
    out = tmp_path / "export"
    manifest = export_lm_eval(["tind"], out, data=str(SHARED), limit=40, seed=3)
    task = get_task("tind")
    items = task.load(str(SHARED), "test", 40, 3).items
    assert manifest["tasks"]["tind"]["count"] == len(items) and manifest["tasks"]["tind"]["format"] == "raw"
    assert list(manifest["tasks"]["tind"]["data"]["files"]) == ["tind/raw-public.zip"]
    written = "".join(path.read_text(encoding="utf-8") for path in out.iterdir() if path.name != "utils.py")
    assert not any(item.sentence in written for item in items)
    rows = list(load_utils(out).load_tind()["test"])
    assert [(row["item_id"], row["label"]) for row in rows] == [(item.item_id, item.label) for item in items]
    # a different release is refused, never silently evaluated
    other = tmp_path / "other"
    other.mkdir()
    (other / "#01.Pattern.txt").write_text(
        f"% Test {items[0].group_id:06d}\tSource: x\tDistractor: y\n\n"
        "1-1\taffirmation\tnone\tnone\tInput     \tT\tNot the same sentence.\n"
    )
    monkeypatch.setenv("NEGKIT_TIND_SOURCE", str(other))
    with pytest.raises(ValueError, match="differs from the one negkit exported|is not in"):
        load_utils(out).load_tind()


@pytest.mark.skipif(not (SHARED / "scone").is_dir(), reason="ScoNe not found in ../shared/data")
def test_nli_docs_match_negkit_requests(tmp_path):
    pytest.importorskip("datasets")
    out = tmp_path / "export"
    assert (
        main(
            [
                "export",
                "lm-eval",
                "--tasks",
                "scone,nan-nli",
                "--data",
                str(SHARED),
                "--limit",
                "scone=12,nan-nli=5",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    utils = load_utils(out)
    for name, loader in (("scone", utils.load_scone), ("nan-nli", utils.load_nan_nli)):
        task = get_task(name)
        items = task.load(str(SHARED), "test", 12 if name == "scone" else 5, 0).items
        docs = list(loader()["test"])
        assert [doc["item_id"] for doc in docs] == [item.item_id for item in items]
        for doc, item, requests in zip(docs, items, task.requests(items)):
            assert [(doc["prompt"], " " + choice) for choice in doc["choices"]] == [
                (request.context, request.continuation) for request in requests
            ]
            assert task.answers[doc["choices"][doc["gold"]]] == (
                item.label if name == "nan-nli" else ("entailment" if item.label == "entailment" else "neutral")
            )
        assert read_yaml(out / f"{harness_names()[name][0]}.yaml")["target_delimiter"] == " "


def test_export_errors(tmp_path, capsys):
    with pytest.raises(NegkitError, match="cannot export tind-fewshot"):
        export_lm_eval(["tind-fewshot"], tmp_path / "x")
    with pytest.raises(NegkitError, match="--num-fewshot does not apply to task scone"):
        export_lm_eval(["scone"], tmp_path / "x", num_fewshot=2)
    assert main(["export", "lm-eval", "--tasks", ",", "--out", str(tmp_path / "y")]) == 2
    assert "no task to export" in capsys.readouterr().err


def test_the_harness_loads_the_export(tmp_path):
    """With the Harness importable, its own task loader builds the contexts negkit asks."""
    pytest.importorskip("lm_eval")
    from lm_eval.tasks import TaskManager

    out = tmp_path / "export"
    export_lm_eval(["nubench"], out, data=str(FIXTURE), limit=3)
    task = TaskManager(include_path=str(out)).load(["negkit_nubench"])["tasks"]["negkit_nubench"]
    docs = list(task.test_docs())
    negkit = get_task("nubench")
    items = negkit.load(str(FIXTURE), "test", 3, 0).items
    assert [task.doc_to_text(doc) for doc in docs] == [requests[0].context for requests in negkit.requests(items)]


NEW_SUITES = {
    "blimp-negation": "load_blimp_negation",
    "neqa": "load_neqa",
    "negnli-mnli": "load_negnli_mnli",
    "negnli-snli": "load_negnli_snli",
    "negnli-rte": "load_negnli_rte",
}


@pytest.mark.parametrize("name", list(NEW_SUITES))
def test_new_suites_export_negkit_requests(tmp_path, name):
    """BLiMP negation, NeQA and NegNLI: the Harness documents, contexts and continuations are negkit's requests."""
    pytest.importorskip("datasets")
    folder = get_task(name).dataset
    if not (SHARED / folder).is_dir():
        pytest.skip(f"{folder} not found in ../shared/data")
    out = tmp_path / "export"
    assert main(["export", "lm-eval", "--tasks", name, "--data", str(SHARED), "--limit", "9", "--out", str(out)]) == 0
    harness = harness_names()[name][0]
    config = read_yaml(out / f"{harness}.yaml")
    assert config["task"] == harness and config["custom_dataset"] == f"!function utils.{NEW_SUITES[name]}"
    assert config["output_type"] == "multiple_choice" and config["test_split"] == "test"
    manifest = json.loads((out / "negkit_export.json").read_text(encoding="utf-8"))
    entry = manifest["tasks"][name]
    assert entry["harness_tasks"] == [harness] and entry["docs"] == {"test": f"{harness}.test.jsonl"}
    assert entry["data"]["files"] and all(file.startswith(folder + "/") for file in entry["data"]["files"])
    task = get_task(name)
    items = task.load(str(SHARED), "test", 9, 0).items
    docs = list(getattr(load_utils(out), NEW_SUITES[name])()["test"])
    assert entry["count"] == len(docs) == len(items) >= 9
    assert [doc["item_id"] for doc in docs] == [item.item_id for item in items]
    delimiter = config["target_delimiter"]
    assert delimiter == {"blimp-negation": " ", "neqa": ""}.get(name, " ")
    for doc, requests in zip(docs, task.requests(items)):
        context = doc[config["doc_to_text"]]
        choices = doc[config["doc_to_choice"]]
        assert [(context, delimiter + choice) for choice in choices] == [
            (request.context, request.continuation) for request in requests
        ]
    for doc, item in zip(docs, items):
        gold = doc[config["doc_to_target"]]
        if name == "blimp-negation":
            assert doc["context"] == "" and doc["choices"] == [item.good, item.bad] and gold == 0
        elif name == "neqa":
            assert gold == item.gold and doc["prompt"] == item.prompt
        else:
            assert task.answers[doc["choices"][gold]] == item.label
    if name.startswith("negnli"):
        assert docs[0]["choices"] == (
            ["yes", "no"] if name == "negnli-rte" else ["entailment", "contradiction", "neutral"]
        )


@pytest.mark.parametrize("name", list(NEW_SUITES))
def test_the_harness_asks_negkit_requests_on_the_new_suites(tmp_path, name):
    """With the Harness importable, its own requests for the exported documents are negkit's."""
    pytest.importorskip("lm_eval")
    from lm_eval.tasks import TaskManager

    if not (SHARED / get_task(name).dataset).is_dir():
        pytest.skip(f"{get_task(name).dataset} not found in ../shared/data")
    out = tmp_path / "export"
    export_lm_eval([name], out, data=str(SHARED), limit=7)
    harness = harness_names()[name][0]
    task = TaskManager(include_path=str(out)).load([harness])["tasks"][harness]
    negkit = get_task(name)
    items = negkit.load(str(SHARED), "test", 7, 0).items
    asked = [
        [
            instance.arguments
            for instance in task.construct_requests(doc, task.doc_to_text(doc), metadata=(harness, 0, 1))
        ]
        for doc in task.test_docs()
    ]
    assert asked == [
        [(request.context, request.continuation) for request in requests] for requests in negkit.requests(items)
    ]
