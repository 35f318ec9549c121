"""``negkit data stats SUITE``: NaN-NLI's and Thunder-NUBench's data tables, hand-counted on small inputs and
checked on the real NaN-NLI file against the numbers the spec prints."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from conftest import NUBENCH_FIXTURE, shared_data_path

from negkit.benchmarks.nan_nli.data import NAN_OPERATIONS, NEGATION_TYPES, read_nan_nli
from negkit.benchmarks.nan_nli.stats import nan_nli_data_statistics, nan_nli_statistics
from negkit.benchmarks.nubench.stats import nubench_data_statistics
from negkit.cli import main

FIXTURE = NUBENCH_FIXTURE


def write_nan(path: Path, rows: list[dict[str, str]]) -> Path:
    """A NaN-NLI CSV with every column; unnamed cells blank, unset flags and operations 0."""
    header = [
        "premise",
        "hypothesis",
        "label",
        *[f"P-{k}" for k in NEGATION_TYPES],
        "Unnamed: 13",
        *[f"H-{k}" for k in NEGATION_TYPES],
        "Unnamed: 22",
        "Construction",
        "Construction Subtype",
        *NAN_OPERATIONS,
        "Quantification",
    ]
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, header)
        writer.writeheader()
        for row in rows:
            full = {name: "0" for name in header if name.startswith(("P-", *NAN_OPERATIONS, "Quantification"))}
            full.update({name: "" for name in header if name.startswith(("H-", "Unnamed"))})
            full.update(row)
            writer.writerow(full)
    return path


# two premises, four pairs; worked out by hand below
ROWS = [
    {
        "premise": "Not all came.",
        "hypothesis": "Some did not come.",
        "label": "entailment",
        "P-Non-verbal": "1",
        "P-Sub-clausal": "1",
        "H-Verbal": "1",
        "H-Clausal": "1",
        "Construction": "not + quantifier",
        "Construction Subtype": "not all",
        "Indefinite quantifier change": "1",
        "Negator position change": "1",
        "Quantification": "1",
    },
    {
        "premise": "Not all came.",
        "hypothesis": "All came.",
        "label": "contradiction",
        "P-Non-verbal": "1",
        "P-Sub-clausal": "1",
        "Construction": "not + quantifier",
        "Construction Subtype": "not all",
        "Negator addition or deletion": "2",
        "Quantification": "1",
    },
    {
        "premise": "Not all came.",
        "hypothesis": "Many came.",
        "label": "neutral",
        "P-Non-verbal": "1",
        "P-Sub-clausal": "1",
        "Construction": "not + quantifier",
        "Construction Subtype": "not all",
        "Negator addition or deletion": "1",
        "Lexical change": "1",
    },
    {
        "premise": "Not even Ed came.",
        "hypothesis": "Ed did not come.",
        "label": "entailment",
        "P-Non-verbal": "1",
        "P-Sub-clausal": "1",
        "H-Verbal": "1",
        "H-Clausal": "1",
        "Construction": "not + focus particle",
        "Construction Subtype": "not even",
        "Clause or sub-clause deletion": "1",
    },
]


def table(statistics, title_start: str) -> dict[str, tuple]:
    found = next(t for t in statistics.tables if t.title.startswith(title_start))
    return {row[0]: row[1:] for row in found.rows}


def test_table_1_order_names_every_operation_once():
    from negkit.benchmarks.nan_nli.stats import TABLE_1_ORDER

    assert sorted(TABLE_1_ORDER) == sorted(NAN_OPERATIONS)


def test_nan_nli_tables_by_hand(tmp_path):
    statistics = nan_nli_statistics(read_nan_nli(write_nan(tmp_path / "nan.csv", ROWS)))
    operations = table(statistics, "Operations used")
    # times applied (cell sum), pairs, contradiction, entailment, neutral
    assert operations["Negator addition or deletion"] == (3, 2, 1, 0, 1)
    assert operations["Indefinite quantifier change"] == (1, 1, 0, 1, 0)
    assert operations["Syntactical changes"] == (0, 0, 0, 0, 0)
    labels = table(statistics, "Gold labels")
    assert labels["entailment"] == (2, 50.0) and labels["all"] == (4, 100.0)
    constructions = table(statistics, "Labels per construction")
    assert constructions["not + quantifier"] == (1, 3, 1, 1, 1) and constructions["all"] == (2, 4, 1, 2, 1)
    types = table(statistics, "Negation types")
    assert types["Non-verbal"] == (2, 4, 0) and types["Verbal"] == (0, 0, 2) and types["no negation"] == (0, 0, 2)
    assert table(statistics, "Operations per pair") == {1: (2,), 2: (2,)}
    assert statistics.values["nan_quant_pairs"] == 2 and statistics.values["premises"] == 2


def test_nan_nli_tables_2_and_3_by_hand(tmp_path):
    """Table 2: C is the one pair without hypothesis negation and with a non-verbal, sub-clausal premise; E the two
    pairs whose hypothesis is verbal and clausal; ALL: 2 of 4 hypotheses verbal, 2 of 4 without negation. Table 3:
    negator addition or deletion builds the C and the N pair (100%, 0%, 100%; 2 of 4 = 50% in all)."""
    statistics = nan_nli_statistics(read_nan_nli(write_nan(tmp_path / "nan.csv", ROWS)))
    rows = table(statistics, "Labels and negation types (Table 2)")
    assert rows["C"] == (
        "1 (25.0%)",
        "0.0 / 100.0",
        "0.0 / 0.0",
        "0.0 / 100.0",
        "0.0 / 0.0",
        "0.0 / 0.0",
        "0.0 / 0.0",
        "100.0",
    )
    assert rows["E"] == (
        "2 (50.0%)",
        "0.0 / 100.0",
        "0.0 / 0.0",
        "0.0 / 100.0",
        "100.0 / 0.0",
        "0.0 / 0.0",
        "100.0 / 0.0",
        "0.0",
    )
    assert rows["ALL"][0] == "4" and rows["ALL"][4] == "50.0 / 0.0" and rows["ALL"][7] == "50.0"
    assert statistics.values["table2"]["N"]["premise"]["Sub-clausal"] == 100.0
    operations = table(statistics, "Operations per class (Table 3)")
    assert operations["Negator addition or deletion"] == (100.0, 0.0, 100.0, 50.0)
    assert operations["Indefinite quantifier change"] == (0.0, 50.0, 0.0, 25.0)
    assert operations["Lexical change"] == (0.0, 0.0, 100.0, 25.0)
    assert statistics.values["table3"]["Clause or sub-clause deletion"]["E"] == 50.0


def test_data_stats_cli_markdown_and_json(tmp_path, capsys):
    write_nan(tmp_path / "nan-nli.csv", ROWS)
    folder = tmp_path / "nan-nli"
    folder.mkdir()
    write_nan(folder / "nan.csv", ROWS)
    assert main(["data", "stats", "nan-nli", "--data", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("## nan-nli: data statistics")
    assert "| Negator addition or deletion | 3 | 2 | 1 | 0 | 1 |" in out
    assert main(["data", "stats", "nan-nli", "--data", str(tmp_path), "--json", "--out", str(tmp_path / "s.json")]) == 0
    payload = json.loads((tmp_path / "s.json").read_text())
    assert payload["values"]["labels"] == {"contradiction": 1, "entailment": 2, "neutral": 1}
    assert main(["data", "stats", "no-such-suite"]) == 2
    assert "unknown suite 'no-such-suite'" in capsys.readouterr().err
    assert main(["data", "stats", "scone"]) == 2
    assert "suite 'scone' has no data statistics (suites with statistics:" in capsys.readouterr().err


def test_the_registry_holds_the_statistics_functions():
    from negkit.kit.suites.registry import get_suite

    assert get_suite("nan-nli").statistics is nan_nli_data_statistics
    assert get_suite("nubench").statistics is nubench_data_statistics


def test_nan_nli_numbers_match_the_paper():
    statistics = nan_nli_data_statistics(shared_data_path())
    values = statistics.values
    assert (values["pairs"], values["premises"], values["nan_quant_pairs"]) == (258, 48, 133)
    assert values["labels"] == {"contradiction": 117, "entailment": 97, "neutral": 44}
    assert (values["constructions"], values["construction_subtypes"]) == (13, 18)
    pairs = {name: row[1] for name, row in table(statistics, "Labels per construction").items()}
    # the paper's Table 8 merges two pairs of constructions: 11/26 and 9/27 errors
    assert pairs["not + affixially negated gradable adjective"] + pairs["not + affixially negated adverb"] == 26
    assert pairs["absolute negator"] + pairs["approximate negator"] == 27
    # the paper's Table 1 counts, in its order (the cell sums: 130 = 118 ones and six twos)
    assert list(values["operations"].values()) == [74, 27, 130, 101, 6, 36, 20, 16, 13, 4]
    assert values["operation_pairs"]["Negator addition or deletion"] == 124
    # Table 2: the printed table agrees with nan.csv but for the C and E premise verbal / non-verbal cells (the
    # file gives C 1 verbal premise pair of 117, E 5 of 97) and four cells one tenth off by rounding
    note = next(t for t in statistics.tables if t.title.startswith("Labels and negation types")).note
    differing = note.split("Cells that differ from the printed table: ")[1].rstrip(".").split("; ")
    assert differing == [
        "C P-Verbal 0.9 (printed 5.2)",
        "C P-Non-verbal 99.1 (printed 94.9)",
        "C P-Sub-clausal 99.1 (printed 99.2)",
        "E P-Verbal 5.2 (printed 0.2)",
        "E P-Non-verbal 94.8 (printed 99.9)",
        "E P-Sub-clausal 94.8 (printed 94.9)",
        "E H-Non-verbal 20.6 (printed 20.5)",
        "E H-Sub-clausal 21.6 (printed 21.7)",
        "ALL H-Verbal 48.4 (printed 48.5)",
    ]
    assert values["table2"]["C"]["premise"]["Verbal"] == 100 / 117


def test_thunder_nubench_counts_of_the_fixture(capsys):
    statistics = nubench_data_statistics(FIXTURE)
    types = table(statistics, "Items per local-negation type")
    # validation, test, total, published validation, published test (fixture README counts)
    assert types["relative_part"] == (2, 6, 8, 31, 293)
    assert types["non-applicable"] == (1, 3, 4, 2, 37)
    assert types["all"] == (6, 24, 30, 100, 1002)
    sizes = {(row[0], row[1]): row[2:] for row in next(t for t in statistics.tables if "Table 9" in t.title).rows}
    assert sizes[("sentence-negation-pair", "train")] == (5, 3772)
    assert main(["data", "stats", "thunder-nubench", "--data", str(FIXTURE)]) == 0
    assert "| multiple-choice | test | 24 | 1,002 |" in capsys.readouterr().out


def test_thunder_nubench_without_the_pairs(tmp_path):
    import shutil

    shutil.copytree(FIXTURE / "multiple-choice", tmp_path / "thunder-nubench" / "multiple-choice")
    statistics = nubench_data_statistics(tmp_path)
    assert statistics.values["sizes"]["sentence-negation-pair/train"] is None
    assert "| sentence-negation-pair | train | – | 3,772 |" in statistics.to_markdown()
