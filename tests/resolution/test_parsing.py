"""The DP systems on a tiny random BERT encoder (built from a config here; no download, seconds): training,
prediction, saving, resuming, the UD stage of the -synt systems, and the layers they are made of."""

from __future__ import annotations

import gzip
import json
import math
from dataclasses import replace
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from test_resolution_taggers import NEGATED, PLAIN, TRAIN, save_tiny_bert  # noqa: E402

from negkit.cli import main  # noqa: E402
from negkit.errors import InputFormatError, NegkitError  # noqa: E402
from negkit.resolution.corpora.cdsco import format_cdsco  # noqa: E402
from negkit.resolution.layers import ScalarMix, make_scheduler, resolve_device, schedule_factor  # noqa: E402
from negkit.resolution.parsing import loop as loop_module  # noqa: E402
from negkit.resolution.parsing.loop import LoopSettings  # noqa: E402
from negkit.resolution.parsing.network import ParserConfig  # noqa: E402
from negkit.resolution.parsing.parser import NegationParser  # noqa: E402
from negkit.resolution.parsing.settings import ParserSettings, UdSettings  # noqa: E402
from negkit.resolution.parsing.training import train_parser  # noqa: E402
from negkit.resolution.parsing.ud import cache_folder, read_conllu  # noqa: E402
from negkit.resolution.splits import CDSCO_FILES  # noqa: E402
from negkit.resolution.systems import load_system  # noqa: E402

UD_SENTENCES = [
    ("i did not see anyone .", [4, 4, 4, 0, 4, 4], ["nsubj", "aux", "advmod", "root", "obj", "punct"]),
    ("the man came", [2, 3, 0], ["det", "nsubj", "root"]),
]


@pytest.fixture(scope="module")
def encoder(tmp_path_factory) -> Path:
    return save_tiny_bert(tmp_path_factory.mktemp("tiny-bert"))


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> Path:
    """A data root with a tiny CD-SCO (train: the tagger tests' sentences, dev and test: one copy) and UD EWT."""
    root = tmp_path_factory.mktemp("data")
    (root / "cd-sco").mkdir()
    for split, names in CDSCO_FILES.items():
        for name in names:
            (root / "cd-sco" / name).write_text(format_cdsco(TRAIN if split == "train" else NEGATED + PLAIN))
    ud = root / "training" / "ud-english-ewt"
    ud.mkdir(parents=True)
    lines = []
    for number, (text, heads, relations) in enumerate(UD_SENTENCES * 4):
        lines.append(f"# sent_id = s{number}")
        for i, (word, head, relation) in enumerate(zip(text.split(), heads, relations), start=1):
            lines.append("\t".join([str(i), word, word, "X", "X", "_", str(head), relation, f"{head}:{relation}", "_"]))
        lines.append("")
    for name in ("en_ewt-ud-train.conllu.gz", "en_ewt-ud-dev.conllu.gz"):
        with gzip.open(ud / name, "wt", encoding="utf-8") as handle:
            handle.write("\n".join(lines) + "\n")
    return root


def settings(encoder: Path, system: str = "dp-nested", epochs: int = 30) -> ParserSettings:
    return ParserSettings(
        system=system,
        encoder=str(encoder),
        loop=LoopSettings(epochs=epochs, patience=epochs, learning_rate=3e-3, batch_size=8, warmup_steps=5, seed=1),
        network=ParserConfig(edge_hidden=32, label_hidden=16, dropout=0.0, layer_dropout=0.0),
        hidden_dropout=0.0,
        attention_dropout=0.0,
        ud=UdSettings(epochs=1, dev_sentences=4),
    )


@pytest.mark.parametrize("system", ["dp-direct", "dp-nested"])
def test_the_parser_learns_cues_and_scopes_in_one_step(encoder, tmp_path, system):
    parser = NegationParser(settings(encoder, system))
    report = parser.fit(TRAIN, NEGATED + PLAIN)
    assert report.finished and report.best_epoch > 0
    predicted = parser.predict(NEGATED + PLAIN)
    assert [s.instances for s in predicted] == [s.instances for s in NEGATED + PLAIN]
    parser.save(tmp_path / "model")
    loaded = load_system(tmp_path / "model")
    assert isinstance(loaded, NegationParser) and loaded.settings.system == system
    assert [s.instances for s in loaded.predict(NEGATED + PLAIN)] == [s.instances for s in predicted]
    record = json.loads((tmp_path / "model" / "negkit_resolution.json").read_text())
    assert record["system"] == system and record["settings"]["loop"]["learning_rate"] == 3e-3
    assert record["settings"]["network"]["labels"] and record["report"]["best_epoch"] == report.best_epoch


def test_gold_cues_keep_the_annotated_cues(encoder):
    parser = NegationParser(settings(encoder, epochs=2))  # barely trained: the cues must come from the input
    parser.fit(TRAIN, NEGATED)
    predicted = parser.predict(NEGATED + PLAIN, gold_cues=True)
    assert [[i.cue for i in s.instances] for s in predicted] == [[i.cue for i in s.instances] for s in NEGATED + PLAIN]


def test_a_run_stopped_by_its_budget_resumes_to_the_same_weights(encoder, tmp_path, monkeypatch):
    whole = NegationParser(settings(encoder, epochs=3))
    whole.fit(TRAIN, NEGATED)
    clock = iter(range(10**6))
    monkeypatch.setattr(loop_module.time, "monotonic", lambda: float(next(clock)))
    sliced = NegationParser(settings(encoder, epochs=3))
    first = sliced.fit(TRAIN, NEGATED, checkpoint=tmp_path / "state", time_limit_s=7)
    assert first.stopped_by == "time limit" and not first.finished
    assert (tmp_path / "state" / "state.pt").exists()
    resumed = NegationParser(settings(encoder, epochs=3))
    second = resumed.fit(TRAIN, NEGATED, checkpoint=tmp_path / "state")
    assert second.finished and second.slices == 2 and second.steps == 15
    assert not (tmp_path / "state").exists()
    for key, value in whole.network.state_dict().items():
        assert torch.equal(value, resumed.network.state_dict()[key]), key


def test_cli_trains_resumes_predicts_and_evaluates(encoder, data, tmp_path, capsys):
    out = tmp_path / "dp"
    common = [
        "resolution",
        "train",
        "--system",
        "dp-direct",
        "--encoder",
        str(encoder),
        "--data",
        str(data),
        "--out",
        str(out),
        "--epochs",
        "2",
        "--learning-rate",
        "3e-3",
        "--lstm-layers",
        "1",
        "--lstm-hidden",
        "8",
    ]
    assert main([*common, "--minutes", "0.00001"]) == 0
    assert "not finished" in capsys.readouterr().out and (out / "checkpoint" / "settings.json").exists()
    assert main(common) == 2
    assert "holds an unfinished training; add --resume" in capsys.readouterr().err
    assert main([*common, "--resume"]) == 0
    assert "model written" in capsys.readouterr().out and not (out / "checkpoint").exists()
    assert not (out / ".negkit.lock").exists()  # the training's lock is released with the model written
    record = json.loads((out / "negkit_resolution.json").read_text())
    assert record["settings"]["network"]["lstm_layers"] == 1 and record["settings"]["loop"]["epochs"] == 2
    test_file = data / "cd-sco" / CDSCO_FILES["test"][0]
    assert main(["resolution", "predict", str(out), str(test_file), "--out", str(tmp_path / "sys.txt"), "--score"]) == 0
    assert main(["resolution", "score", str(test_file), str(tmp_path / "sys.txt")]) == 0
    capsys.readouterr()
    assert main(["resolution", "evaluate", str(out), "--corpus", "cd-sco", "--data", str(data), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["system"] == str(out)


def test_the_synt_systems_first_parse_ud_and_cache_the_encoder(encoder, data, tmp_path):
    cache = tmp_path / "ud-cache"
    messages: list[str] = []
    outcome = train_parser(
        settings(encoder, "dp-nested-synt", epochs=1), tmp_path / "synt", data=data, ud_cache=cache, log=messages.append
    )
    assert outcome.finished
    (stage,) = cache.iterdir()
    record = json.loads((stage / "ud.json").read_text())
    assert record["relations"] == 7 and 0 <= record["dev_las"] <= record["dev_uas"] <= 100
    assert (stage / "encoder" / "config.json").exists()
    saved = json.loads((tmp_path / "synt" / "negkit_resolution.json").read_text())
    assert saved["ud_stage"]["folder"] == str(stage)
    messages.clear()
    train_parser(
        settings(encoder, "dp-direct-synt", epochs=1),
        tmp_path / "synt2",
        data=data,
        ud_cache=cache,
        log=messages.append,
    )
    assert any(message.startswith("UD stage: cached encoder") for message in messages)


def test_the_ud_stage_cache_key_ignores_what_only_the_negation_stage_uses():
    """One UD stage serves every negation corpus: the corpus's affix lexicon, labels, epochs and patience do not
    shape it (keying on them retrained the same encoder for BioScope and SFU), the learning rate does."""
    base = ParserSettings(system="dp-nested-synt")
    corpus_specific = replace(
        base,
        loop=replace(base.loop, epochs=3, patience=2),
        network=replace(base.network, labels=["cue", "scope"], affixes={"prefixes": {"un": 80}, "inner": {}}),
    )
    assert cache_folder("enc", corpus_specific) == cache_folder("enc", base)
    assert cache_folder("enc", replace(base, loop=replace(base.loop, learning_rate=1e-3))) != cache_folder("enc", base)
    assert cache_folder("other", base) != cache_folder("enc", base)


def test_conllu_reader(tmp_path):
    path = tmp_path / "x.conllu"
    path.write_text(
        "# text = a b\n1-2\tab\t_\t_\t_\t_\t_\t_\t_\t_\n1\ta\ta\tX\tX\t_\t2\tnsubj:pass\t_\t_\n"
        "2\tb\tb\tX\tX\t_\t0\troot\t_\t_\n2.1\tc\t_\t_\t_\t_\t_\t_\t_\t_\n\n"
    )
    (sentence,) = read_conllu(path)
    assert (sentence.words, sentence.heads, sentence.relations) == (["a", "b"], [2, 0], ["nsubj", "root"])
    path.write_text("1\ta\ta\tX\n")
    with pytest.raises(InputFormatError, match=r"x\.conllu:1: expected 10 tab-separated fields, found 4"):
        read_conllu(path)
    path.write_text("1\ta\ta\tX\tX\t_\t7\troot\t_\t_\n\n")
    with pytest.raises(InputFormatError, match="a head points past the end of its sentence"):
        read_conllu(path)


def test_train_help_lists_the_papers_settings(capsys):
    with pytest.raises(SystemExit):
        main(["resolution", "train", "--help"])
    text = capsys.readouterr().out
    for flag in (
        "--system",
        "dp-nested-synt",
        "--synt",
        "--learning-rate",
        "--batch-size",
        "--epochs",
        "--dropout",
        "--hidden-dropout",
        "--attention-dropout",
        "--layer-mix",
        "--layer-dropout",
        "--schedule",
        "noam",
        "--warmup-steps",
        "--lstm-layers",
        "--lstm-hidden",
        "--cue-embedding",
        "--device",
        "--encoder",
        "--resume",
        "--ud-epochs",
        "--minutes",
    ):
        assert flag in text, flag


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--synt"], "--synt goes with --system dp-direct or dp-nested"),
        (["--system", "dp-nested", "--scope-variant", "bilstm"], "--scope-variant is a setting of --system cue-scope"),
        (["--epochs", "3"], "--epochs is a setting of the DP systems, not of cue-scope"),
        (["--system", "dp-nested", "--resume"], "no unfinished training to resume"),
        (["--dropout", "1.5"], "argument --dropout: expected a number in [0, 1), got '1.5'"),
        (["--system", "dp-direct", "--schedule", "cosine"], "argument --schedule: invalid choice"),
    ],
)
def test_bad_training_requests_are_one_line_errors(tmp_path, capsys, extra, message):
    assert main(["resolution", "train", "--out", str(tmp_path / "m"), *extra]) == 2
    error = capsys.readouterr().err
    assert message in error and error.count("\n") == 1


def test_a_cuda_device_without_cuda_is_an_error():
    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA")
    with pytest.raises(NegkitError, match="torch sees no CUDA device"):
        resolve_device("cuda")
    assert resolve_device("auto") == torch.device("cpu")


def test_schedules_by_hand():
    assert [schedule_factor("noam", step, 4, 100) for step in (0, 1, 3, 15)] == [0.25, 0.5, 1.0, 0.5]
    assert [schedule_factor("linear", step, 2, 10) for step in (0, 1, 2, 6, 10)] == [0.0, 0.5, 1.0, 0.5, 0.0]
    assert schedule_factor("constant", 7, 2, 10) == 1.0
    with pytest.raises(NegkitError, match="unknown learning-rate schedule 'cosine'"):
        schedule_factor("cosine", 1, 1, 1)
    parameter = torch.nn.Parameter(torch.zeros(1))
    optimizer = torch.optim.SGD([parameter], lr=1.0)
    scheduler = make_scheduler(optimizer, "noam", 4, 100)
    rates = []
    for _ in range(5):
        rates.append(optimizer.param_groups[0]["lr"])
        optimizer.step()
        scheduler.step()
    assert rates == [0.25, 0.5, 0.75, 1.0, pytest.approx(math.sqrt(4 / 5))]


def test_scalar_mix_by_hand():
    mix = ScalarMix(2)
    with torch.no_grad():
        mix.weights.copy_(torch.tensor([0.0, math.log(3.0)]))
        mix.gamma.fill_(2.0)
    layers = [torch.full((1, 2), 4.0), torch.full((1, 2), 8.0)]
    assert torch.allclose(mix(layers), torch.full((1, 2), 2.0 * (0.25 * 4 + 0.75 * 8)))
    dropping = ScalarMix(3, layer_dropout=0.99).train()
    torch.manual_seed(0)
    for _ in range(20):  # nearly every layer dropped: at least one is always kept
        assert torch.isfinite(dropping([torch.ones(1)] * 3)).all()
    with pytest.raises(ValueError):
        ScalarMix(2, layer_dropout=1.0)


def test_the_two_stage_system_takes_the_papers_settings(encoder, data, tmp_path):
    out = tmp_path / "bilstm"
    assert (
        main(
            [
                "resolution",
                "train",
                "--encoder",
                str(encoder),
                "--data",
                str(data),
                "--out",
                str(out),
                "--scope-variant",
                "bilstm",
                "--lstm-layers",
                "2",
                "--lstm-hidden",
                "8",
                "--cue-embedding",
                "4",
                "--layer-mix",
                "--layer-dropout",
                "0.1",
                "--dropout",
                "0.2",
                "--hidden-dropout",
                "0.05",
                "--schedule",
                "noam",
                "--warmup-steps",
                "3",
                "--learning-rate",
                "3e-3",
                "--batch-size",
                "8",
                "--cue-epochs",
                "1",
                "--scope-epochs",
                "1",
                "--patience",
                "1",
                "--device",
                "cpu",
            ]
        )
        == 0
    )
    record = json.loads((out / "negkit_resolution.json").read_text())["settings"]
    assert (record["lstm_layers"], record["lstm_hidden"], record["cue_embedding_dim"]) == (2, 8, 4)
    assert (record["layer_mix"], record["layer_dropout"], record["dropout"], record["hidden_dropout"]) == (
        True,
        0.1,
        0.2,
        0.05,
    )
    for stage in ("cue", "scope"):
        assert (
            record[stage]["schedule"],
            record[stage]["warmup_steps"],
            record[stage]["learning_rate"],
            record[stage]["batch_size"],
            record[stage]["patience"],
        ) == ("noam", 3, 3e-3, 8, 1)
    network = json.loads((out / "scope" / "tagger.json").read_text())
    assert (network["lstm_layers"], network["lstm_hidden"], network["cue_embedding_dim"], network["layer_mix"]) == (
        2,
        8,
        4,
        True,
    )
    loaded = load_system(out)
    assert len(loaded.predict(NEGATED)) == len(NEGATED)


def test_the_two_stage_defaults_are_unchanged():
    from negkit.resolution.train import ResolverSettings

    settings = ResolverSettings.for_budget(27.0)
    assert (
        settings.dropout,
        settings.layer_mix,
        settings.lstm_layers,
        settings.lstm_hidden,
        settings.cue_embedding_dim,
        settings.hidden_dropout,
    ) == (0.1, False, 1, 128, 16, None)
    for stage, epochs, patience in ((settings.cue, 5, 2), (settings.scope, 10, 3)):
        assert (
            stage.epochs,
            stage.patience,
            stage.learning_rate,
            stage.batch_size,
            stage.schedule,
            stage.warmup_steps,
            stage.device,
        ) == (epochs, patience, 1e-4, 16, "linear", None, "cpu")


@pytest.mark.parametrize("system", ["cue-scope", "dp-direct"])
def test_a_second_training_into_a_held_model_folder_is_refused(encoder, data, tmp_path, capsys, system):
    """Issue 32, finding 14: ``resolution train --out EXISTING`` had no output-folder lock, so a second training
    into the same folder (or a ``--resume`` of it) ran beside the first. The first training's lock is held here as a
    live process holds it; with it released, the same command trains into the existing folder."""
    from negkit.io.locks import RunLock

    out = tmp_path / "model"
    (out / "cue").mkdir(parents=True)
    (out / "cue" / "earlier-file").write_text("the model before")
    command = ["resolution", "train", "--system", system, "--encoder", str(encoder), "--data", str(data)]
    command += ["--out", str(out), "--learning-rate", "3e-3", "--lstm-hidden", "8"]
    command += (
        ["--epochs", "1", "--lstm-layers", "1"]
        if system == "dp-direct"
        else ["--cue-epochs", "1", "--scope-epochs", "1"]
    )
    capsys.readouterr()
    with RunLock(out, info={"command": "negkit resolution train (the first run)"}):
        assert main(command) == 2
        error = capsys.readouterr().err
        assert error.startswith(f"negkit: error: {out / '.negkit.lock'}: this output folder is in use by another")
        assert error.count("\n") == 1 and "--wait-lock" not in error and "Traceback" not in error
        assert sorted(path.name for path in out.iterdir()) == [".negkit.lock", "cue"]  # nothing written
    assert main(command) == 0, capsys.readouterr().err
    assert "model written" in capsys.readouterr().out
    assert (out / "negkit_resolution.json").is_file() and not (out / ".negkit.lock").exists()
    assert [path.name for path in tmp_path.iterdir()] == ["model"]  # no temporary folder left behind
