"""The new suites through the commands: ``negkit eval --list`` finds their data, ``--tasks negnli`` runs its three
files, the NaN-NLI paper's Table 5 and Figure 1 appear when NegNLI-MNLI and NaN-NLI run together, and
``negkit score`` reads each suite's predictions (``negkit eval``'s samples files included)."""

from __future__ import annotations

import json

from conftest import shared_data_path
from malformed import assert_input_error
from suite_fixtures import write_blimp, write_negnli, write_neqa

from negkit.cli import main
from negkit.kit.render import plots

NEW_SUITES = ("blimp-negation", "negnli", "neqa")


def test_list_shows_the_new_suites_with_their_data(capsys):
    data = shared_data_path()
    assert main(["eval", "--list", "--data", str(data)]) == 0
    out = capsys.readouterr().out
    section = out.split("Tasks:")[0]
    suites = {line.split()[0]: line for line in section.splitlines() if line.startswith("  ") and "\t" in line}
    for name in NEW_SUITES:
        assert name in suites and "data: " in suites[name], out
    assert "negation-nli" in suites["negnli"] and "blimp-negation" in suites["blimp-negation"]
    for task in ("negnli-mnli", "negnli-snli", "negnli-rte", "neqa", "blimp-negation"):
        assert f"  {task}\t" in out


def test_suite_name_runs_its_tasks_and_table5_appears(tmp_path, capsys):
    """``--tasks negnli,nan-nli``: the three NegNLI files and NaN-NLI, then Table 5's layout in report.md and the two
    confusion matrices side by side in report.html."""
    out = tmp_path / "run"
    assert (
        main(
            [
                "eval",
                "--model",
                "random",
                "--tasks",
                "negnli,nan-nli",
                "--data",
                str(shared_data_path()),
                "--limit",
                "30",
                "--bootstrap",
                "100",
                "--out",
                str(out),
                "--no-progress",
            ]
        )
        == 0
    )
    printed = capsys.readouterr().out
    for task in ("negnli-mnli", "negnli-snli", "negnli-rte", "nan-nli"):
        assert (out / f"{task}.results.json").is_file()
    report = (out / "report.md").read_text(encoding="utf-8")
    assert "Table 5" in report and "| F1 | NegNLI | NaN-NLI |" in report
    assert "| All (support-weighted) |" in report and printed.count("| F1 | NegNLI | NaN-NLI |") == 1
    mnli = json.loads((out / "negnli-mnli.results.json").read_text())["metrics"]
    cell = f"{mnli['standard']['all_f1']:.3f} ["
    assert cell in report.split("| All (support-weighted) |")[1].split("\n")[0]
    page = (out / "report.html").read_text(encoding="utf-8")
    assert "Table 5" in page
    if plots.available():
        section = page.split("Table 5")[1]
        assert (
            section.count("<svg") >= 2
            and "NegNLI: confusion matrix" in section
            and "NaN-NLI: confusion matrix" in section
        )


def test_score_reads_each_new_suite(tmp_path, capsys):
    root = tmp_path / "data"
    write_blimp(root)
    write_negnli(root)
    write_neqa(root)
    out = tmp_path / "run"
    assert (
        main(
            [
                "eval",
                "--model",
                "random",
                "--tasks",
                "blimp-negation,negnli-rte,neqa",
                "--data",
                str(root),
                "--bootstrap",
                "50",
                "--out",
                str(out),
                "--no-progress",
            ]
        )
        == 0
    )
    capsys.readouterr()
    for suite, task, path in (
        ("blimp-negation", "blimp-negation", "overall.accuracy"),
        ("negnli", "negnli-rte", "standard.all_f1"),
        ("neqa", "neqa", "acc"),
    ):
        results = json.loads((out / f"{task}.results.json").read_text())["metrics"]
        assert (
            main(
                ["score", suite, str(out / f"{task}.samples.jsonl"), "--data", str(root), "--json", "--bootstrap", "50"]
            )
            == 0
        )
        scored = json.loads(capsys.readouterr().out)
        node, again = results, scored
        for part in path.split("."):
            node, again = node[part], again[part]
        assert again == node, (suite, again, node)
    predictions = tmp_path / "neqa.jsonl"
    predictions.write_text("\n".join(json.dumps({"index": k, "prediction": "B"}) for k in range(4)) + "\n")
    assert main(["score", "neqa", str(predictions), "--data", str(root), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["acc"] == 0.75
    blimp = tmp_path / "blimp.jsonl"
    blimp.write_text(json.dumps({"item_id": "blimp-npi_present_1-0", "prediction": "maybe"}) + "\n")
    assert_input_error(
        ["score", "blimp-negation", blimp, "--data", root],
        capsys,
        where=blimp,
        line=1,
        contains="is not good, bad, 0 or 1",
    )
    mixed = tmp_path / "negnli.jsonl"
    mixed.write_text(
        json.dumps({"item_id": "negnli-mnli-0", "prediction": "neutral"})
        + "\n"
        + json.dumps({"item_id": "negnli-rte-0", "prediction": "entailment"})
        + "\n"
    )
    assert_input_error(
        ["score", "negnli", mixed, "--data", root], capsys, where=mixed, contains="score each file apart"
    )
