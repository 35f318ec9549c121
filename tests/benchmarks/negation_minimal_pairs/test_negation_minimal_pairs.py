"""Negation minimal pairs (Hartmann et al. 2021): the reader on the real data (the README's counts), malformed files,
the constant, majority and random baselines on hand-made pairs (numbers worked out by hand), and the one path."""

from __future__ import annotations

import pytest
from conftest import shared_data_path
from one_path import assert_compares_with_itself, assert_score_is_eval, evaluate
from probe_fixtures import random_logprob, run, write_jsonl

from negkit.benchmarks.negation_minimal_pairs import CHOICES, FILES, SPECS, read_minimal_pairs
from negkit.errors import InputFormatError
from negkit.kit.suites.nli import THREE_WAY_PROMPT

APPROX = pytest.approx


def test_reader_on_the_real_data():
    folder = shared_data_path("negation-minimal-pairs")
    counts = {}
    for language in FILES:
        items = SPECS[language].read(folder, "test")
        counts[language] = (
            len({item.unit for item in items}),
            len(items),
            sum(item.group == "important" for item in items),
        )
    # the README's table: originals, modified, important
    assert counts == {
        "en": (908, 1052, 730),
        "de": (1163, 1334, 892),
        "fr": (701, 843, 591),
        "bg": (755, 882, 634),
        "zh": (1155, 1155, 618),
        "mnli": (465, 1196, 718),
    }
    first = SPECS["en"].read(folder, "test")[0]
    assert first.parts["original"].prompt.startswith("Premise: ") and first.parts["original"].choices == CHOICES


def _original(pair: str, premise: str, hypothesis: str, label: str) -> dict:
    return {"pairID": f"{pair}_Orig", "sentence1": premise, "sentence2": hypothesis, "gold_label": label}


def _modified(pair: str, version: str, premise: str, hypothesis: str, label: str, original: str) -> dict:
    return {
        "pairID": f"{pair}_{version}",
        "sentence1": premise,
        "sentence2": hypothesis,
        "gold_label": label,
        "orig_label": original,
    }


#: Three minimal pairs: 1 (contradiction -> entailment: important), 2 Mod2 (neutral -> neutral: unimportant),
#: 2 Mod1 (neutral -> contradiction: important).
ROWS = [
    _original("1", "The cat is not here .", "The cat is here .", "contradiction"),
    _modified("1", "Mod1", "The cat is here .", "The cat is here .", "entailment", "contradiction"),
    _original("2", "He never sings .", "He is tall .", "neutral"),
    _modified("2", "Mod2", "He never sings .", "He is very tall .", "neutral", "neutral"),
    _modified("2", "Mod1", "He sings .", "He is tall .", "contradiction", "neutral"),
]


def test_malformed_files(tmp_path):
    path = tmp_path / "x.jsonl"
    write_jsonl(path, [ROWS[0], {**ROWS[1], "gold_label": "maybe"}])
    with pytest.raises(
        InputFormatError,
        match=r"x.jsonl:2: field 'gold_label': expected 'entailment', 'contradiction' or 'neutral', found 'maybe'",
    ):
        read_minimal_pairs(path, "en")
    write_jsonl(path, [ROWS[0], ROWS[3]])
    with pytest.raises(
        InputFormatError, match=r"x.jsonl:2: modified example '2_Mod2' does not follow its original 2_Orig"
    ):
        read_minimal_pairs(path, "en")
    write_jsonl(path, [ROWS[0], {**ROWS[1], "orig_label": "neutral"}])
    with pytest.raises(InputFormatError, match=r"x.jsonl:2: field 'orig_label': 'neutral' is not the original's label"):
        read_minimal_pairs(path, "en")
    write_jsonl(path, [ROWS[0], {**ROWS[1], "pairID": "1_Mod7"}])
    with pytest.raises(InputFormatError, match=r"x.jsonl:2: field 'pairID': unknown version 'Mod7'"):
        read_minimal_pairs(path, "en")
    write_jsonl(path, [ROWS[0], {"pairID": "1_Mod1", "sentence1": "x"}])
    with pytest.raises(InputFormatError, match=r"x.jsonl:2: .*sentence2"):
        read_minimal_pairs(path, "en")
    write_jsonl(path, [ROWS[0]])
    with pytest.raises(InputFormatError, match=r"x.jsonl: no minimal pairs"):
        read_minimal_pairs(path, "en")


def _data(root):
    write_jsonl(root / "negation-minimal-pairs" / FILES["en"], ROWS)
    return root


def test_constant_and_majority_by_hand(tmp_path):
    root = _data(tmp_path / "data")
    entailment = run("constant:entailment", "negation-minimal-pairs-en", root, tmp_path / "e")["metrics"]
    # right only on pair 1's modified example
    assert entailment["overall"]["original"]["accuracy"] == 0.0
    assert (
        entailment["overall"]["modified"]["accuracy"] == APPROX(1 / 3) and entailment["overall"]["both_correct"] == 0.0
    )
    assert entailment["negations"]["important"]["modified"]["accuracy"] == APPROX(1 / 2)
    neutral = run("constant:neutral", "negation-minimal-pairs-en", root, tmp_path / "n")["metrics"]
    # originals 2 and 2 right (2/3); modified: pair 2 Mod2 only (1/3); both: pair 2 Mod2 (1/3)
    assert neutral["overall"]["original"]["accuracy"] == APPROX(2 / 3)
    assert neutral["overall"]["modified"]["accuracy"] == APPROX(1 / 3)
    assert neutral["overall"]["both_correct"] == APPROX(1 / 3)
    assert neutral["negations"]["important"]["both_correct"] == 0.0
    assert neutral["negations"]["unimportant"]["both_correct"] == 1.0
    # gold labels over all six parts: neutral 3, contradiction 2, entailment 1
    majority = run("majority", "negation-minimal-pairs-en", root, tmp_path / "m")
    assert majority["model"]["extra"] == {"answer": "neutral"}
    assert majority["metrics"]["overall"]["both_correct"] == APPROX(1 / 3)


def test_random_by_hand(tmp_path):
    result = run("random", "negation-minimal-pairs-en", _data(tmp_path / "data"), tmp_path / "r")
    by_id = {f"{row['pairID'].split('_')[0]}": row for row in ROWS if row["pairID"].endswith("Orig")}
    both = original_right = 0
    for row in ROWS:
        if row["pairID"].endswith("Orig"):
            continue
        flags = []
        for example in (by_id[row["pairID"].split("_")[0]], row):
            prompt = THREE_WAY_PROMPT.format(premise=example["sentence1"], hypothesis=example["sentence2"])
            scores = [random_logprob(0, prompt, choice) for choice in CHOICES]
            flags.append(CHOICES[scores.index(max(scores))].strip() == example["gold_label"])
        original_right += flags[0]
        both += flags[0] and flags[1]
    overall = result["metrics"]["overall"]
    assert overall["both_correct"] == APPROX(both / 3) and overall["original"]["accuracy"] == APPROX(original_right / 3)


def test_score_of_the_samples_is_the_eval(tmp_path, capsys):
    data = shared_data_path()
    shared_data_path("negation-minimal-pairs")
    for model in ("random", "constant:neutral"):
        out = evaluate(tmp_path / model.replace(":", "-"), model, "negation-minimal-pairs-en", data, ["--limit", "40"])
        metrics = assert_score_is_eval(
            out,
            "negation-minimal-pairs-en",
            "negation-minimal-pairs",
            data,
            capsys,
            score_only=("data_count", "source"),
        )
        assert {"overall.both_correct", "negations.important.both_correct"} <= set(metrics["intervals"])
        assert len(assert_compares_with_itself(out, "negation-minimal-pairs-en", capsys, metrics)["metrics"]) == 3
