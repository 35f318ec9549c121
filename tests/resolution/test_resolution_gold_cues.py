"""Scope resolution from gold cues: ``NegationResolver.predict(gold_cues=True)``, ``negkit resolution predict
--gold-cues`` and ``negkit resolution evaluate --gold-cues`` (with intervals), on a tiny random encoder."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from test_resolution_taggers import (  # noqa: E402,F401
    NEGATED,
    PLAIN,
    annotated,
    cues_and_scopes,
    tiny_encoder,  # noqa: F401 - pytest fixtures, taken by name
    trained_model,  # noqa: F401
)

from negkit.cli import main  # noqa: E402
from negkit.resolution.corpora.cdsco import format_cdsco, read_cdsco  # noqa: E402
from negkit.resolution.predict import predict  # noqa: E402
from negkit.resolution.splits import CDSCO_FILES  # noqa: E402
from negkit.resolution.train import NegationResolver  # noqa: E402

#: "anyone" is no cue the tagger learnt: only the gold-cue mode keeps it.
ODD_CUE = annotated("i did not see anyone .", [(4, "anyone")], [])


def cues(sentence) -> list[list[tuple[int, str]]]:
    return [cue for cue, _ in cues_and_scopes(sentence)]


def test_gold_cue_mode_keeps_the_annotated_cues_and_predicts_their_scopes(trained_model):
    resolver = NegationResolver.load(trained_model)
    gold = [*NEGATED, ODD_CUE, *PLAIN]
    predicted = resolver.predict(gold, gold_cues=True)
    assert [cues(s) for s in predicted] == [cues(s) for s in gold]
    # the scopes of the cues it was trained on come out as annotated; no events, no speculation
    assert [cues_and_scopes(s) for s in predicted[:4]] == [cues_and_scopes(s) for s in NEGATED]
    assert all(not i.event for s in predicted for i in s.instances)
    # end to end, the tagger finds "not" in that sentence instead
    assert cues(resolver.predict([ODD_CUE])[0]) == [[(2, "not")]]


def test_predict_cli_with_gold_cues(trained_model, tmp_path, capsys):
    gold = tmp_path / "gold.txt"
    gold.write_text(format_cdsco([*NEGATED, ODD_CUE]))
    out = tmp_path / "system.txt"
    assert (
        main(["resolution", "predict", str(trained_model), str(gold), "--gold-cues", "--out", str(out), "--score"]) == 0
    )
    assert [cues(s) for s in read_cdsco(out)] == [cues(s) for s in [*NEGATED, ODD_CUE]]
    table = capsys.readouterr().out
    assert "| gold | 100.0 |" in table  # Cues-B F1 is 100 by construction
    library = predict(trained_model, gold, gold_cues=True)
    assert [cues_and_scopes(s) for s in library] == [cues_and_scopes(s) for s in read_cdsco(out)]
    # end to end on the same file: a different cue in the last sentence
    assert main(["resolution", "predict", str(trained_model), str(gold), "--out", str(out)]) == 0
    assert cues(read_cdsco(out)[-1]) == [[(2, "not")]]


def test_gold_cues_need_an_annotated_input(trained_model, tmp_path, capsys):
    blind = tmp_path / "blind.txt"
    blind.write_text(format_cdsco(PLAIN, annotated=False))
    assert (
        main(["resolution", "predict", str(trained_model), str(blind), "--gold-cues", "--out", str(tmp_path / "s.txt")])
        == 2
    )
    assert "has no negation columns (a blind file)" in capsys.readouterr().err
    assert not (tmp_path / "s.txt").exists()


def test_evaluate_cli_with_gold_cues_and_intervals(trained_model, tmp_path, capsys):
    folder = tmp_path / "data" / "cd-sco"
    folder.mkdir(parents=True)
    for names in CDSCO_FILES.values():
        for name in names:
            (folder / name).write_text(format_cdsco([*NEGATED, ODD_CUE, *PLAIN]))
    data = str(tmp_path / "data")
    assert (
        main(
            ["resolution", "evaluate", str(trained_model), "--data", data, "--gold-cues", "--bootstrap", "50", "--json"]
        )
        == 0
    )
    (result,) = json.loads(capsys.readouterr().out)
    assert result["gold_cues"] is True and result["cues_b_f1"] == 100.0 and result["nis_cue_f1"] == 100.0
    starsem, nis = result["intervals"]["starsem"], result["intervals"]["nis"]
    assert {"Scope tokens(no cue match).f1", "Scopes(cue match).f1"} <= set(starsem)
    assert nis["nis_tok.f1"]["resamples"] == 50 and nis["nis_tok.f1"]["unit"] == "sentence"
    low, high = nis["nis_tok.f1"]["ci"]
    assert low <= result["nis_tok_f1"] <= high
    assert main(["resolution", "evaluate", str(trained_model), "--data", data, "--gold-cues", "--bootstrap", "50"]) == 0
    table = capsys.readouterr().out
    assert "| cd-sco | test | gold | 100.0 [100.0, 100.0] |" in table and "95% percentile bootstrap" in table
    assert main(["resolution", "evaluate", str(trained_model), "--data", data]) == 0
    assert "| cd-sco | test | predicted |" in capsys.readouterr().out
