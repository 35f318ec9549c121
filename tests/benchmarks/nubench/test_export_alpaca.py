"""``negkit nubench export-alpaca``: the sentence-negation pairs as the paper's Alpaca SFT file."""

from __future__ import annotations

import json

from conftest import NUBENCH_FIXTURE

from negkit.cli import main

INSTRUCTION = (
    "Logically negate the sentence below. If the sentence includes 'A and B', use 'not A or not B'. If it includes "
    "'A or B', use 'not A and not B'. Also apply 'not' or use complementary antonyms on the main verb(s) of the "
    "entire sentence."
)


def test_export_alpaca_writes_the_fixture_pairs(tmp_path, capsys):
    out = tmp_path / "nubench_sft.json"
    assert main(["nubench", "export-alpaca", "--data", str(NUBENCH_FIXTURE), "--out", str(out)]) == 0
    records = json.loads(out.read_text(encoding="utf-8"))
    assert len(records) == 5  # the fixture's five pairs, in file order
    assert records[0] == {
        "instruction": INSTRUCTION,
        "input": "Sentence: The orchestra performed the symphony at the opening of the new concert hall.\nNegation:",
        "output": "The orchestra did not perform the symphony at the opening of the new concert hall.",
    }
    assert records[1]["output"] == "The merchants did not trade silk or did not trade spices along the coastal route."
    assert f"{out}: 5 Alpaca records from {NUBENCH_FIXTURE}" in capsys.readouterr().err


def test_export_alpaca_refuses_a_folder_as_output(tmp_path, capsys):
    assert main(["nubench", "export-alpaca", "--data", str(NUBENCH_FIXTURE), "--out", str(tmp_path)]) == 2
    assert "is a folder; --out takes the JSON file to write" in capsys.readouterr().err
