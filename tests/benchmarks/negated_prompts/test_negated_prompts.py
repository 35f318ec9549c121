"""Negated prompts: the reader on the real data, malformed files, the constant, majority and random baselines on
hand-made rows (numbers worked out by hand), and the one path."""

from __future__ import annotations

import pytest
from conftest import shared_data_path
from one_path import assert_compares_with_itself, assert_score_is_eval, evaluate
from probe_fixtures import random_logprob, run, write

from negkit.benchmarks.negated_prompts import DATASETS, read_dataset, read_negated_prompts, read_prompt_file
from negkit.errors import InputFormatError

APPROX = pytest.approx
HEADER = "sample_id,prompt,classes,answer_index\n"


def test_reader_on_the_real_data():
    items = read_negated_prompts(shared_data_path("negated-prompts"))
    counts = {dataset: sum(item.group == dataset for item in items) for dataset in DATASETS}
    assert counts == {
        "arc_easy": 300,
        "hellaswag": 300,
        "lambada": 300,
        "piqa": 300,
        "story_cloze": 300,
        "copa": 100,
        "nq": 300,
        "triviaqa": 300,
        "webqa": 300,
    }
    first = items[0]
    assert (
        first.parts["original"].prompt.startswith("Generate the correct answer") and first.parts["original"].gold == 2
    )
    assert first.parts["negated"].prompt.startswith("Generate the incorrect answer")
    assert (first.parts["negated"].gold, first.parts["negated"].also_right) == (0, (1, 3))


def test_malformed_files(tmp_path):
    path = write(tmp_path / "x.csv", HEADER + "0,Pick one.,\"[' a', ' b']\",0\n1,Pick one.,\"[' a', ' b']\",\"0,2\"\n")
    with pytest.raises(InputFormatError, match=r"x.csv:3: column 'answer_index': '0,2' is not the index"):
        read_prompt_file(path)
    write(path, HEADER + "0,Pick one.,[a b],0\n")
    with pytest.raises(InputFormatError, match=r"x.csv:2: column 'classes': expected a list of candidates"):
        read_prompt_file(path)
    write(path, "sample_id,prompt\n0,x\n")
    with pytest.raises(InputFormatError, match=r"x.csv:1: missing column\(s\): classes, answer_index"):
        read_prompt_file(path)
    folder = tmp_path / "d"
    original, negated = DATASETS["piqa"]
    write(folder / original, HEADER + "0,Pick.,\"[' a', ' b']\",0\n1,Pick.,\"[' a', ' b']\",0\n")
    write(folder / negated, HEADER + "0,Do not pick.,\"[' a', ' b']\",1\n")
    with pytest.raises(InputFormatError, match=r"negation_300.csv: 1 rows for the 2 of piqa_generate_300.csv"):
        read_dataset(folder, "piqa")


def _data(root):
    """One row per data set, candidates ' A' and ' B': the original's answer A, the negated one's B (COPA: both)."""
    for dataset, (original, negated) in DATASETS.items():
        folder = root / "negated-prompts"
        write(folder / original, HEADER + f"0,Say the right letter for {dataset}.,\"[' A', ' B']\",0\n")
        write(
            folder / negated,
            HEADER
            + f"0,Say a wrong letter for {dataset}.,\"[' A', ' B']\","
            + ('"0,1"' if dataset == "copa" else "1")
            + "\n",
        )
    return root


def test_constant_and_majority_by_hand(tmp_path):
    root = _data(tmp_path / "data")
    letter_a = run("constant:A", "negated-prompts", root, tmp_path / "a")["metrics"]
    # A: every original right; of the negated, only COPA's (both letters right)
    assert letter_a["overall"]["original"]["accuracy"] == 1.0
    assert letter_a["overall"]["negated"]["accuracy"] == APPROX(1 / 9) and letter_a["overall"]["gap"] == APPROX(8 / 9)
    assert letter_a["datasets"]["copa"]["gap"] == 0.0 and letter_a["datasets"]["piqa"]["gap"] == 1.0
    letter_b = run("constant:B", "negated-prompts", root, tmp_path / "b")["metrics"]["overall"]
    assert (
        letter_b["original"]["accuracy"] == 0.0 and letter_b["negated"]["accuracy"] == 1.0 and letter_b["gap"] == -1.0
    )
    # right answers (the first of each part): A 9 + 1 (COPA's negated), B 8
    majority = run("majority", "negated-prompts", root, tmp_path / "m")
    assert majority["model"]["extra"] == {"answer": "A"}


def test_random_by_hand(tmp_path):
    result = run("random", "negated-prompts", _data(tmp_path / "data"), tmp_path / "r")
    negated_right = gap = 0
    for dataset in DATASETS:
        says = []
        for prompt in (f"Say the right letter for {dataset}.", f"Say a wrong letter for {dataset}."):
            scores = [random_logprob(0, prompt, letter) for letter in (" A", " B")]
            says.append(scores.index(max(scores)))
        right_negated = dataset == "copa" or says[1] == 1
        negated_right += right_negated
        gap += (says[0] == 0) - right_negated
    overall = result["metrics"]["overall"]
    assert overall["negated"]["accuracy"] == APPROX(negated_right / 9) and overall["gap"] == APPROX(gap / 9)


def test_score_of_the_samples_is_the_eval(tmp_path, capsys):
    data = shared_data_path()
    shared_data_path("negated-prompts")
    out = evaluate(tmp_path / "random", "random", "negated-prompts", data, ["--limit", "45"])
    metrics = assert_score_is_eval(
        out, "negated-prompts", "negated-prompts", data, capsys, score_only=("data_count", "source")
    )
    assert {"overall.negated.accuracy", "overall.gap", "datasets.copa.gap"} <= set(metrics["intervals"])
    assert len(assert_compares_with_itself(out, "negated-prompts", capsys, metrics)["metrics"]) == 3
