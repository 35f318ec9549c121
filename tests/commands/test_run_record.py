"""The reproduction record in results files, the Harness's flags and layout, and per-sample inputs and prompts."""

from __future__ import annotations

import json
import shlex

import pytest
from conftest import NUBENCH_FIXTURE, REPO_ROOT

from negkit.cli import main
from negkit.commands.eval.evaluate import evaluate
from negkit.commands.eval.flags import task_options_for
from negkit.commands.eval.options import EvalOptions
from negkit.commands.eval.record import data_record, inserted_system_text, merge_timings, negkit_source
from negkit.errors import NegkitError
from negkit.kit.suites import get_task
from negkit.kit.tasks.base import resolve_limit

FIXTURE = NUBENCH_FIXTURE
SHARED = REPO_ROOT / ".." / "shared" / "data"
#: A chat template that, like SmolLM2's, adds a system line of its own when the prompt has none.
SYSTEM_TEMPLATE = (
    "{% if messages[0]['role'] != 'system' %}<|im_start|>system\nYou are a tiny test model.<|im_end|>\n{% endif %}"
    "{% for message in messages %}<|im_start|>{{ message['role'] }}\n{{ message['content'] }}<|im_end|>\n"
    "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


def tiny_model(template: str | None = SYSTEM_TEMPLATE):
    from tiny_models import tiny_causal_lm

    model = tiny_causal_lm(chat_template=template is not None)
    if template is not None:
        model.tokenizer.chat_template = template
    return model


def test_inserted_system_text_is_found():
    assert inserted_system_text(tiny_model()) == "You are a tiny test model."
    from tiny_models import CHAT_TEMPLATE

    assert inserted_system_text(tiny_model(CHAT_TEMPLATE)) == ""  # a template that adds nothing
    assert inserted_system_text(tiny_model(None)) is None


def test_data_files_are_keyed_by_relative_path(tmp_path):
    for split in ("train", "test"):
        (tmp_path / "suite" / split).mkdir(parents=True)
        (tmp_path / "suite" / split / "a.csv").write_text(split)
    files = [tmp_path / "suite" / "train" / "a.csv", tmp_path / "suite" / "test" / "a.csv"]
    record = data_record(str(tmp_path), files)
    assert record["root"] == str(tmp_path.resolve())
    assert set(record["files"]) == {"suite/train/a.csv", "suite/test/a.csv"}  # same name, two entries
    assert record["files"]["suite/test/a.csv"]["bytes"] == 4


def test_timings_of_every_invocation_are_kept():
    first = merge_timings(None, {"score_s": 10.0, "requests_computed": 5})
    second = merge_timings(first, {"score_s": 1.0, "requests_computed": 0})
    assert [run["score_s"] for run in second["runs"]] == [10.0, 1.0] and second["total_score_s"] == 11.0
    assert second["score_s"] == 1.0  # this invocation's at the top, as before
    legacy = merge_timings({"score_s": 3.0}, {"score_s": 1.0})  # a results file from before runs were kept
    assert [run["score_s"] for run in legacy["runs"]] == [3.0, 1.0]


def test_negkit_commit_is_recorded_from_a_checkout():
    source = negkit_source()
    assert source["version"]
    if (REPO_ROOT / ".git").exists():
        assert source["commit"] and len(source["commit"]) == 40


def test_fractional_limits():
    assert resolve_limit(0.1, 258) == 26 and resolve_limit(0.001, 10) == 1 and resolve_limit(7, 100) == 7
    with pytest.raises(NegkitError):
        resolve_limit(1.5, 10)


@pytest.mark.parametrize(
    ("tasks", "options", "message"),
    [
        (["scone"], {"num_fewshot": 5}, "--num-fewshot does not apply to task scone"),
        (["tind"], {"prompt": "3"}, "--prompt does not apply to task tind"),
        (["nubench", "scone"], {"prompt": "3"}, "give it per task, e.g. --prompt TASK=VALUE"),
        (["nubench"], {"prompt": {"scone": "3"}}, "--prompt names tasks that are not run: scone"),
        (["nubench"], {"prompt": "99"}, "unknown Thunder-NUBench prompt '99'"),
    ],
)
def test_flags_that_do_not_apply_are_errors(tasks, options, message):
    with pytest.raises(NegkitError, match=message.replace("(", r"\(").replace("+", r"\+")):
        task_options_for(tasks, EvalOptions(**options))


@pytest.mark.parametrize(
    ("tasks", "warning"),
    [
        (["scone", "nan-nli"], "--seed changes nothing for scone, nan-nli"),
        (["nubench"], "--seed changes nothing for nubench"),  # zero-shot draws nothing
    ],
)
def test_a_seed_no_task_uses_is_a_warning_as_in_the_harness(tasks, warning, capsys):
    options = task_options_for(tasks, EvalOptions(seed=3))
    assert set(options) == set(tasks)
    assert f"negkit: warning: {warning}" in capsys.readouterr().err


def test_classifier_tasks_take_no_prompt_flags():
    with pytest.raises(
        NegkitError,
        match="--apply-chat-template / --no-chat-template does not apply to task scone with a classifier model",
    ):
        task_options_for(["scone"], EvalOptions(chat=True), classifier=True)


def test_flags_become_task_options():
    options = task_options_for(
        ["nubench", "tind"], EvalOptions(num_fewshot={"nubench": 2}, seed=7, chat=False, system_instruction="Be brief.")
    )
    assert options["nubench"].options == {
        "num_fewshot": 2,
        "chat": False,
        "system_instruction": "Be brief.",
        "seeds": (7,),
    }
    assert options["nubench"].task.seeds == (7,) and options["nubench"].task.num_fewshot == 2
    assert options["tind"].options == {"chat": False, "system_instruction": "Be brief."}


def test_cli_reports_a_flag_that_does_not_apply(capsys):
    assert main(["eval", "--model", "default", "--tasks", "scone", "--num-fewshot", "3"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "--num-fewshot does not apply to task scone" in captured.err


def test_chat_and_system_instruction_in_prompts():
    model = tiny_model()
    scone = get_task("scone", chat=True, system_instruction="Think.")
    template = scone.prompt_template(model)
    assert template.startswith("<|im_start|>system\nThink.<|im_end|>\n<|im_start|>user\nAssume that {premise}\n")
    assert template.endswith("<|im_start|>assistant\n") and scone.target_delimiter == ""
    plain = get_task("nan-nli", system_instruction="Think.")
    assert plain.prompt_template(model).startswith("Think.\n\nPremise: {premise}\n")
    tind = get_task("tind", chat=False)
    assert tind.prompt_template(model) == "Is the following statement True or False? {sentence}"


def test_record_samples_and_harness_layout(tmp_path):
    model = tiny_model()
    out = tmp_path / "run"
    options = EvalOptions(data=str(FIXTURE), limit=0.5, num_fewshot=1, seed=42, out=out, progress=False, chat=True)
    (result,) = evaluate(model, ["nubench"], options)
    record = result["record"]
    command = shlex.split(record["command"])
    assert command[:4] == ["negkit", "eval", "--model", "tiny-llama"]
    for flag, value in (
        ("--limit", "0.5"),
        ("--num-fewshot", "1"),
        ("--seed", "42"),
        ("--dtype", "float32"),
        ("--out", str(out.resolve())),
        ("--data", str(FIXTURE.resolve())),
    ):
        assert command[command.index(flag) + 1] == value
    assert "--apply-chat-template" in command
    environment = record["environment"]
    assert environment["python"] and environment["packages"]["torch"] and environment["packages"]["transformers"]
    assert record["date_utc"].endswith("Z") and record["model"]["device"] == "cpu"
    assert record["options"]["chat"] is True and record["options"]["num_fewshot"] == 1
    assert result["prompt"]["inserted_system_text"] == "You are a tiny test model."
    assert "{fewshot_examples}" in result["prompt"]["template"] and "{s}" in result["prompt"]["template"]
    assert result["task"]["seeds"] == [42] and result["data"]["count"] == 12  # half of the 24 fixture items
    assert "multiple-choice/test.jsonl" in result["data"]["files"]
    samples = [json.loads(line) for line in (out / "nubench.samples.jsonl").read_text().splitlines()]
    first = samples[0]
    assert first["sentence"] and len(first["choices"]) == len(first["candidates"])
    assert first["prompt"].startswith("<|im_start|>system\nYou are a tiny test model.")  # the exact context
    assert first["sentence"] in first["prompt"] and len(first["runs"]["seed-42"]["fewshot_ids"]) == 1
    combined = json.loads((out / "results.json").read_text())
    for key in ("results", "configs", "versions", "n-shot", "n-samples", "config", "higher_is_better"):
        assert "nubench" in combined[key] or key == "config"
    assert combined["n-shot"]["nubench"] == 1 and combined["n-samples"]["nubench"] == {"original": 24, "effective": 12}
    harness = combined["results"]["nubench"]
    assert harness["acc,none"] == pytest.approx(result["metrics"]["summary"]["acc"]["mean"])
    assert isinstance(harness["acc_stderr,none"], float)
    assert combined["config"]["model"] == "tiny-llama" and combined["config"]["device"] == "cpu"
    assert combined["config"]["batch_sizes"] and combined["record"]["model"]["batching"]["sizes_used"]  # sizes used
    assert combined["chat_template"] == SYSTEM_TEMPLATE and combined["tasks"][0]["task"]["task"] == "nubench"


@pytest.mark.skipif(not (SHARED / "nan-nli" / "nan.csv").is_file(), reason="NaN-NLI data not found in ../shared/data")
def test_nli_samples_carry_inputs_and_prompt(tmp_path):
    model = tiny_model()
    (result,) = evaluate(model, ["nan-nli"], EvalOptions(data=str(SHARED), limit=3, out=tmp_path, progress=False))
    samples = [json.loads(line) for line in (tmp_path / "nan-nli.samples.jsonl").read_text().splitlines()]
    assert len(samples) == 3
    for sample in samples:
        assert (
            sample["premise"]
            and sample["hypothesis"]
            and sample["choices"] == ["entailment", "contradiction", "neutral"]
        )
        assert (
            sample["prompt"] == f"Premise: {sample['premise']}\nHypothesis: {sample['hypothesis']}\n"
            "Does the premise entail the hypothesis, contradict it, or neither? Answer entailment, contradiction or neutral.\nAnswer:"
        )
    assert list(result["data"]["files"]) == ["nan-nli/nan.csv"]


def test_the_recorded_command_reproduces_the_run(tmp_path):
    from tiny_models import save_tiny_causal

    model = save_tiny_causal(tmp_path / "model")
    first = tmp_path / "first"
    assert (
        main(
            [
                "eval",
                "--model",
                f"hf:{model}",
                "--tasks",
                "nubench",
                "--data",
                str(FIXTURE),
                "--limit",
                "0.25",
                "--num-fewshot",
                "1",
                "--seed",
                "3",
                "--apply-chat-template",
                "--system-instruction",
                "Be exact.",
                "--output-path",
                str(first),
                "--no-progress",
                "--log-samples",
            ]
        )
        == 0
    )
    recorded = json.loads((first / "results.json").read_text())["record"]["command"]
    command = shlex.split(recorded)
    assert command[:2] == ["negkit", "eval"] and "--log-samples" not in command  # only what changes results
    command[command.index("--out") + 1] = str(tmp_path / "again")  # from the file alone, into a new folder
    assert main([*command[1:], "--no-progress"]) == 0
    again = json.loads((tmp_path / "again" / "results.json").read_text())
    assert again["record"]["command"].replace(str(tmp_path / "again"), str(first)) == recorded
    samples = [(tmp_path / name / "nubench.samples.jsonl").read_text() for name in ("first", "again")]
    assert samples[0] == samples[1] and again["results"] == json.loads((first / "results.json").read_text())["results"]
