"""Train and predict with a tiny random BERT encoder (built from a config here; no download, seconds)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from negkit.cli import main  # noqa: E402
from negkit.resolution.corpora.cdsco import format_cdsco, lines_from_text, parse_cdsco  # noqa: E402
from negkit.resolution.instances import NegationInstance, ResolutionSentence, Token, TokenPart  # noqa: E402
from negkit.resolution.neural import TrainingSettings, resolve_encoder  # noqa: E402
from negkit.resolution.scope_resolver import ScopeResolver  # noqa: E402
from negkit.resolution.train import NegationResolver, ResolverSettings  # noqa: E402

WORDS = "i did not see anyone . it is impossible to say neither he nor she came careless the man was".split()


def annotated(text: str, cues: list[tuple[int, str]], scope: list[int]) -> ResolutionSentence:
    words = text.split()
    tokens = [Token(w, pos="." if w == "." else "NN") for w in words]
    cue = tuple(TokenPart(i, t, words[i].find(t)) for i, t in cues)
    scope_parts = []
    for i in scope:
        affix = next((p for p in cue if p.index == i), None)
        if affix is None:
            scope_parts.append(TokenPart(i, words[i], 0))
        else:  # the rest of an affixed word
            rest_start = len(affix.text) if affix.start == 0 else 0
            rest = words[i][len(affix.text) :] if affix.start == 0 else words[i][: affix.start]
            scope_parts.append(TokenPart(i, rest, rest_start))
    return ResolutionSentence(
        tokens,
        [NegationInstance(cue, tuple(scope_parts))],
        sentence_id=f"t/{len(words)}",
        chapter="t",
        number=str(len(words)),
    )


NEGATED = [
    annotated("i did not see anyone .", [(2, "not")], [0, 1, 3, 4]),
    annotated("it is impossible to say .", [(2, "im")], [0, 1, 2, 3, 4]),
    annotated("neither he nor she came .", [(0, "neither"), (2, "nor")], [1, 3, 4]),
    annotated("the man was careless .", [(3, "less")], [0, 1, 2, 3]),
]
PLAIN = [
    ResolutionSentence([Token(w, pos="NN") for w in "the man came".split()], sentence_id="t/p", chapter="t", number="p")
]
TRAIN = (NEGATED + PLAIN) * 8


@pytest.fixture(scope="module")
def tiny_encoder(tmp_path_factory) -> Path:
    return save_tiny_bert(tmp_path_factory.mktemp("tiny-bert"))


def save_tiny_bert(folder: Path) -> Path:
    """A 2-layer BERT with random weights and a word-piece vocabulary of :data:`WORDS`, saved into ``folder``."""
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *sorted(set(WORDS)), "##less", "care", "im", "##possible"]
    (folder / "vocab.txt").write_text("\n".join(vocab) + "\n")
    transformers.BertTokenizer(str(folder / "vocab.txt")).save_pretrained(folder)
    torch.manual_seed(0)
    config = transformers.BertConfig(
        vocab_size=len(vocab),
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=64,
    )
    transformers.BertModel(config).save_pretrained(folder)
    return folder


def settings(encoder: Path, variant: str) -> ResolverSettings:
    fast = dict(epochs=25, patience=25, learning_rate=3e-3, batch_size=8, seed=1, threads=1)
    return ResolverSettings(
        encoder=str(encoder),
        scope_variant=variant,
        cue=TrainingSettings(**fast),
        scope=TrainingSettings(**fast),
        max_length=32,
    )


@pytest.fixture(scope="module")
def trained_model(tiny_encoder, tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("model")
    NegationResolver(settings(tiny_encoder, "marker")).fit(TRAIN, NEGATED + PLAIN).save(folder)
    return folder


def cues_and_scopes(sentence: ResolutionSentence) -> list[tuple[list[tuple[int, str]], list[tuple[int, str]]]]:
    return [([(p.index, p.text) for p in i.cue], [(p.index, p.text) for p in i.scope]) for i in sentence.instances]


def test_saved_model_predicts_affix_and_discontinuous_cues_through_the_cdsco_writer(trained_model):
    resolver = NegationResolver.load(trained_model)
    predicted = resolver.predict(NEGATED + PLAIN)
    assert [cues_and_scopes(s) for s in predicted] == [cues_and_scopes(s) for s in NEGATED + PLAIN]
    # affix "im"/"less" with the word's remainder in scope, and neither..nor as one instance, survive the writer
    reread = parse_cdsco(lines_from_text(format_cdsco(predicted)))
    assert [cues_and_scopes(s) for s in reread] == [cues_and_scopes(s) for s in NEGATED + PLAIN]
    assert cues_and_scopes(reread[1])[0] == (
        [(2, "im")],
        [(0, "it"), (1, "is"), (2, "possible"), (3, "to"), (4, "say")],
    )
    assert cues_and_scopes(reread[2])[0][0] == [(0, "neither"), (2, "nor")]


def test_training_is_deterministic_for_a_seed(tiny_encoder, trained_model, tmp_path):
    again = NegationResolver(settings(tiny_encoder, "marker")).fit(TRAIN, NEGATED + PLAIN)
    first = json.loads((trained_model / "negkit_resolution.json").read_text())
    assert again.cue_tagger.report.dev_scores == first["cue_report"]["dev_scores"]
    assert again.scope_resolver.report.dev_scores == first["scope_report"]["dev_scores"]


def test_bilstm_scope_resolver_learns_scopes_from_gold_cues(tiny_encoder, tmp_path):
    resolver = ScopeResolver("bilstm", str(tiny_encoder), settings(tiny_encoder, "bilstm").scope, max_length=32)
    resolver.fit(TRAIN, NEGATED)
    resolver.save(tmp_path / "scope")
    predicted = ScopeResolver.load(tmp_path / "scope").predict(NEGATED)
    assert [cues_and_scopes(s) for s in predicted] == [cues_and_scopes(s) for s in NEGATED]


def test_predict_cli_writes_a_cdsco_system_file(trained_model, tmp_path):
    gold = tmp_path / "gold.txt"
    gold.write_text(format_cdsco(NEGATED))
    assert main(["resolution", "predict", str(trained_model), str(gold), "--out", str(tmp_path / "system.txt")]) == 0
    assert (tmp_path / "system.txt").read_text() == gold.read_text()


def test_tag_cli_prints_cue_and_scope_with_a_model(trained_model, capsys):
    assert main(["resolution", "tag", "the man was careless.", "--model", str(trained_model), "--format", "json"]) == 0
    result = json.loads(capsys.readouterr().out)
    (negation,) = result["sentences"][0]["negations"]
    assert negation["cue"] == [{"token": 3, "text": "less", "char_start": 16, "char_end": 20}]
    assert {"token": 3, "text": "care", "char_start": 12, "char_end": 16} in negation["scope"]


def test_minilm_alias_resolves_to_the_offline_package_or_stays_a_hub_name():
    resolved = resolve_encoder("all-MiniLM-L6-v2")
    assert resolved == "sentence-transformers/all-MiniLM-L6-v2" or (Path(resolved) / "config.json").exists()
    assert resolve_encoder("org/name") == "org/name"


def test_train_and_evaluate_cli_on_a_small_cdsco_data_root(tiny_encoder, tmp_path, capsys):
    from negkit.resolution.splits import CDSCO_FILES

    folder = tmp_path / "data" / "cd-sco"
    folder.mkdir(parents=True)
    contents = {"train": TRAIN, "dev": NEGATED + PLAIN}
    for split, names in CDSCO_FILES.items():
        for name in names:
            (folder / name).write_text(format_cdsco(contents.get(split, NEGATED)))
    model = tmp_path / "model"
    assert (
        main(
            [
                "resolution",
                "train",
                "--corpus",
                "cd-sco",
                "--data",
                str(tmp_path / "data"),
                "--encoder",
                str(tiny_encoder),
                "--out",
                str(model),
                "--cue-epochs",
                "1",
                "--scope-epochs",
                "1",
            ]
        )
        == 0
    )
    config = json.loads((model / "negkit_resolution.json").read_text())
    assert config["corpus"] == "cd-sco" and config["train_sentences"] == len(TRAIN)
    assert config["cue_report"]["best_epoch"] == 1
    capsys.readouterr()
    assert main(["resolution", "evaluate", str(model), "--corpus", "cd-sco", "--data", str(tmp_path / "data")]) == 0
    table = capsys.readouterr().out
    assert table.startswith("| system | corpus | split | cues | Cues-B F1") and "| cd-sco | test | predicted |" in table


@pytest.mark.parametrize("breakage", ["pickle-encoder-weights", "head-of-another-shape"])
def test_a_damaged_saved_model_is_a_one_line_error(trained_model, breakage, tmp_path, capsys):
    """Issue 32, finding 18: encoder weights as a pickle ``.bin`` gave a ``torch.load`` traceback, and a head
    whose tensors have another shape a "size mismatch" traceback, in ``resolution predict``/``tag``."""
    import pickle
    import shutil

    from negkit.cli import main

    folder = tmp_path / "model"
    shutil.copytree(trained_model, folder)
    encoder = folder / "cue" / "encoder"
    if breakage == "pickle-encoder-weights":
        for weights in encoder.glob("*.safetensors"):
            weights.unlink()
        (encoder / "pytorch_model.bin").write_bytes(pickle.dumps(Path("not tensors")))
        where = encoder
    else:
        head = next(path for path in (folder / "cue").iterdir() if path.suffix == ".pt")
        state = torch.load(head, weights_only=True)
        name = next(key for key, value in state.items() if value.dim() == 2)
        state[name] = torch.zeros(state[name].shape[0] + 3, state[name].shape[1])
        torch.save(state, head)
        where = head
    capsys.readouterr()
    assert main(["resolution", "tag", "--model", str(folder), "I did not go."]) == 2
    error = capsys.readouterr().err
    assert error.startswith(f"negkit: error: {where}") and "Traceback" not in error and len(error.splitlines()) == 1


def test_saving_over_an_existing_model_replaces_it_whole(trained_model, tmp_path):
    """Issue 32, finding 14: ``resolution train --out EXISTING`` overwrote a model in place, not atomically."""
    import shutil

    folder = tmp_path / "model"
    shutil.copytree(trained_model, folder)
    (folder / "cue" / "stale-file").write_text("from the model before")
    NegationResolver.load(trained_model).save(folder)
    assert not (folder / "cue" / "stale-file").exists()  # replaced whole, not written over
    assert NegationResolver.load(folder).settings == NegationResolver.load(trained_model).settings
    assert [path.name for path in tmp_path.iterdir()] == ["model"]  # no temporary folder left behind


def test_saving_keeps_the_folders_run_lock_held(trained_model, tmp_path):
    """Issue 32, finding 14: ``resolution train`` holds its model folder's lock for the whole training; saving
    swaps a new folder into place, and the lock file comes along (the same file), so the lock stays held until the
    training releases it."""
    import shutil

    from negkit.io.locks import LOCK_FILE, RunLock, RunLockedError

    folder = tmp_path / "model"
    shutil.copytree(trained_model, folder)
    with RunLock(folder):
        NegationResolver.load(trained_model).save(folder)
        assert (folder / LOCK_FILE).is_file()
        with pytest.raises(RunLockedError):
            RunLock(folder).acquire()
    assert not (folder / LOCK_FILE).exists() and [path.name for path in tmp_path.iterdir()] == ["model"]
    assert NegationResolver.load(folder).settings == NegationResolver.load(trained_model).settings
