"""A training mix (``negkit finetune --train SOURCE=COUNT,...``): parsing, exact answer balance, minimal pairs in one
batch, phases, the extra losses on hand-worked numbers, the collapse guards, and a whole run on a tiny random model."""

from __future__ import annotations

import json
import math
import random

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("peft")

from conftest import shared_data_path  # noqa: E402
from tiny_models import save_tiny_causal  # noqa: E402

from negkit.cli import main  # noqa: E402
from negkit.errors import NegkitError  # noqa: E402
from negkit.kit.training_data.examples import Example  # noqa: E402
from negkit.training import FinetuneOptions, finetune  # noqa: E402
from negkit.training.callbacks import best_guard_step  # noqa: E402
from negkit.training.mix import (  # noqa: E402
    MixPart,
    balanced_draw,
    is_mix,
    pack_batches,
    parse_mix,
    parse_phases,
    units_of,
)
from negkit.training.objectives import (  # noqa: E402
    answer_log_probs,
    consistency_loss,
    kl_to_base,
    unlikelihood_loss,
)


def example(answer: str, pair: str = "", origin: str = "") -> Example:
    return Example("Q", answer, False, origin, format="f", choices=(" yes", " no"), pair=pair)


def test_parse_mix_and_phases():
    assert is_mix("scone=10,tind:affirmative=5") and not is_mix("tind") and not is_mix("a=b.jsonl")
    parts = parse_mix("scone=10,tind:affirmative=5")
    assert parts == [MixPart("scone", 10), MixPart("tind", 5, "affirmative")]
    assert [[part.key for part in phase] for phase in parse_phases("tind:affirmative;scone", parts)] == [
        ["tind:affirmative"],
        ["scone"],
    ]
    assert parse_phases(None, parts) == [parts]
    for bad, message in (
        ("scone", "not SOURCE=COUNT"),
        ("nope=3", "unknown training source 'nope'"),
        ("scone=0", "at least 1"),
        ("scone=2,scone=3", "named twice"),
    ):
        with pytest.raises(NegkitError, match=message):
            parse_mix(bad)
    with pytest.raises(NegkitError, match="leaves out tind:affirmative"):
        parse_phases("scone", parts)
    with pytest.raises(NegkitError, match="is not a part"):
        parse_phases("scone;tind", parts)


def test_balanced_draw_is_exact_and_says_what_is_missing():
    pool = [example(" yes", origin=str(i)) for i in range(10)] + [example(" no", origin=f"n{i}") for i in range(3)]
    units = units_of(pool, random.Random(0))
    chosen = balanced_draw(units, 6, "f")
    answers = [member.completion for unit in chosen for member in unit]
    assert sorted(answers) == [" no"] * 3 + [" yes"] * 3
    # 7 over two answers: 4 of the first in order (" no"), which the pool lacks
    with pytest.raises(NegkitError, match=r"only 6 of 7 .* 1 more 'no'"):
        balanced_draw(units, 7, "f")


def test_balance_by_negation_fills_answer_x_polarity_and_names_the_missing_cell():
    def marked(answer: str, negated: bool | None, index: int) -> Example:
        return Example("Q", answer, False, f"{answer.strip()}{index}", negated, "f", (" yes", " no"))

    # " no" is mostly negated, as SICK's contradictions are: by answer alone the draw follows the pool's order
    pool = [marked(" no", True, i) for i in range(8)] + [marked(" no", False, i) for i in range(2)]
    pool += [marked(" yes", i % 2 == 0, i) for i in range(8)]
    by_answer = [member for unit in balanced_draw([[each] for each in pool], 8, "f") for member in unit]
    assert sum(member.negated for member in by_answer if member.completion == " no") == 4
    chosen = balanced_draw([[each] for each in pool], 8, "f", by_negation=True)
    cells = sorted((member.completion, member.negated) for unit in chosen for member in unit)
    assert cells == sorted([(" no", False), (" no", True), (" yes", False), (" yes", True)] * 2)
    with pytest.raises(NegkitError, match=r"only 11 of 12 .*answers and polarities .*1 more 'no' \(affirmative\)"):
        balanced_draw([[each] for each in pool], 12, "f", by_negation=True)
    with pytest.raises(NegkitError, match="does not say whether its examples are negated .*yes9"):
        balanced_draw([[each] for each in pool] + [[marked(" yes", None, 9)]], 4, "f", by_negation=True)


def test_pairs_are_drawn_together_and_packed_into_one_batch():
    pool = []
    for key in range(6):
        pool += [example(" yes", f"p{key}", f"{key}a"), example(" no", f"p{key}", f"{key}b")]
    pool += [example(" yes", origin="s1"), example(" no", origin="s2"), example(" yes", "lonely", "s3")]
    units = units_of(pool, random.Random(1))
    assert sum(len(unit) == 2 for unit in units) == 6
    assert all(len({member.completion for member in unit}) == 2 for unit in units if len(unit) == 2)
    order = pack_batches(units, 4)
    assert sorted(member.origin for member in order) == sorted(member.origin for member in pool)
    for start in range(0, len(order), 4):
        batch = order[start : start + 4]
        keys = [member.pair for member in batch if member.pair.startswith("p")]
        assert all(keys.count(key) == 2 for key in keys), batch
    # an odd batch with no single left to fill the last slot: the pair is split rather than the batch left short
    assert len(pack_batches([[pool[0], pool[1]], [pool[2], pool[3]]], 3)) == 4


def test_answer_position_and_unlikelihood_by_hand():
    # two rows of 4 kept positions, vocabulary 3; row 0's deciding token is 2 from the end, row 1's is the last
    logits = torch.zeros(2, 4, 3)
    logits[0, 1] = torch.tensor([0.0, math.log(3.0), 0.0])  # p = (0.2, 0.6, 0.2) at position 4 - 2 - 1 = 1
    logits[1, 2] = torch.tensor([math.log(2.0), 0.0, 0.0])  # p = (0.5, 0.25, 0.25) at position 2
    log_probs = answer_log_probs(logits, torch.tensor([2, 1]))
    assert torch.allclose(log_probs.exp(), torch.tensor([[0.2, 0.6, 0.2], [0.5, 0.25, 0.25]]))
    choice_lp = log_probs[:, :2]  # answers: tokens 0 and 1
    gold = torch.tensor([0, 0])
    # only row 0 is negated: -log(1 - p(wrong answer 1)) = -log(0.4)
    value = unlikelihood_loss(choice_lp, gold, torch.tensor([True, False]))
    assert value.item() == pytest.approx(-math.log(0.4), rel=1e-5)
    assert unlikelihood_loss(choice_lp, gold, torch.tensor([False, False])).item() == 0.0


def test_consistency_by_hand():
    # row 0 gold 0, row 1 gold 1, partners: q0 = 0.2 / (0.2 + 0.6) = 0.25, q1 = 0.25 / (0.25 + 0.5) = 1/3
    choice_lp = torch.log(torch.tensor([[0.2, 0.6], [0.5, 0.25]]))
    value = consistency_loss(choice_lp, torch.tensor([0, 1]), torch.tensor([1, 0]))
    assert value.item() == pytest.approx((0.25 - 1 / 3) ** 2, rel=1e-5)
    assert consistency_loss(choice_lp, torch.tensor([0, 1]), torch.tensor([-1, -1])).item() == 0.0


def test_kl_to_base_by_hand():
    weights = torch.tensor([[0.0, 1.0]])
    same = torch.randn(1, 2, 5)
    assert kl_to_base(same, same.clone(), weights).item() == pytest.approx(0.0, abs=1e-6)
    tuned = torch.zeros(1, 2, 2)
    base = torch.zeros(1, 2, 2)
    base[0, 0] = torch.tensor([math.log(3.0), 0.0])  # base (0.75, 0.25) against tuned (0.5, 0.5)
    expected = 0.75 * math.log(1.5) + 0.25 * math.log(0.5)
    assert kl_to_base(tuned, base, weights).item() == pytest.approx(expected, rel=1e-5)


def test_deterministic_kernels_are_switched_on_for_cuda_only():
    import torch

    from negkit.training.trainer import deterministic_kernels

    assert deterministic_kernels("cpu") is False
    assert not torch.are_deterministic_algorithms_enabled()


def test_best_guard_step_takes_the_best_worst_format():
    history = [
        {"step": 10, "eval_guard_worst_accuracy": 0.5, "eval_guard_worst_format": "a"},
        {"step": 20, "eval_guard_worst_accuracy": 0.7, "eval_guard_worst_format": "b"},
        {"step": 30, "eval_guard_worst_accuracy": 0.6, "eval_guard_worst_format": "a"},
        {"step": 30, "loss": 0.1},
    ]
    step, reason = best_guard_step(history)
    assert step == 20 and reason["worst_format"] == "b" and reason["worst_accuracy"] == 0.7
    assert best_guard_step([{"step": 5, "eval_loss": 1.0}]) is None


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    return save_tiny_causal(tmp_path_factory.mktemp("tiny") / "model")


def test_a_mix_on_a_tiny_model_records_losses_guards_and_repeats_bit_for_bit(tiny, tmp_path):
    shared_data_path("scone")
    shared_data_path("training", "sick")
    shared_data_path("training", "cannot-wikifactcheck")
    options = dict(
        train="scone=12,sick@negnli-rte=8,replay=4",
        phases="scone;sick@negnli-rte,replay",
        dev_per_format=4,
        unlikelihood_weight=0.5,
        consistency_weight=1.0,
        kl_weight=0.1,
        max_steps=4,
        batch_size=4,
        save_steps=2,
        logging_steps=1,
        progress=False,
    )
    run = finetune(f"hf:{tiny}", FinetuneOptions(out=tmp_path / "a", **options))
    assert run["data"]["train"]["description"]["phases"] == [["scone"], ["sick@negnli-rte", "replay"]]
    assert run["data"]["train"]["description"]["parts"]["replay"] == {"phase": 1, "pairs": 0, "examples": 4}
    parts = run["data"]["train"]["description"]["parts"]
    assert parts["scone"][" Yes"] == parts["scone"][" No"] == 6 and parts["scone"]["pairs"] >= 1
    assert parts["sick@negnli-rte"][" yes"] == parts["sick@negnli-rte"][" no"] == 4
    assert run["data"]["train"]["description"]["sources"]["scone"]["in_distribution"] == "scone"
    assert run["data"]["dev"]["description"]["per_format"] == {"scone": 4, "sick@negnli-rte": 4}
    assert run["losses"] == {
        "cross_entropy": 1.0,
        "unlikelihood_weight": 0.5,
        "consistency_weight": 1.0,
        "kl_weight": 0.1,
    }
    guards = run["guards"]
    assert guards["checkpoint_selection"] == "worst-format"
    assert set(guards["content_free_answer_priors"]["before"]) == {"scone", "sick@negnli-rte"}
    assert sum(guards["content_free_answer_priors"]["after"]["scone"].values()) == pytest.approx(1.0, abs=1e-4)
    assert run["result"]["selection"]["criterion"] == "highest worst-format development accuracy"
    assert run["result"]["best_step"] in (2, 4)
    log = [json.loads(line) for line in (tmp_path / "a" / "train_log.jsonl").read_text().splitlines()]
    steps = [entry for entry in log if "loss" in entry]
    assert all({"loss_unlikelihood", "loss_consistency", "loss_kl"} <= set(entry) for entry in steps)
    assert any(entry["loss_kl"] > 0 for entry in steps[1:])
    assert any("eval_guard_accuracy/scone" in entry and "eval_guard_largest_share/scone" in entry for entry in log)
    assert (
        "--train scone=12,sick@negnli-rte=8,replay=4" in run["command"]
        and "--unlikelihood-weight 0.5" in run["command"]
    )
    again = finetune(f"hf:{tiny}", FinetuneOptions(out=tmp_path / "b", **options))
    assert again["adapter"]["weights_sha256"] == run["adapter"]["weights_sha256"]
    assert again["data"]["train"]["examples_sha256"] == run["data"]["train"]["examples_sha256"]


def test_a_mix_balanced_by_negation_records_the_negated_share_and_the_flag(tiny, tmp_path):
    shared_data_path("training", "sick")
    options = FinetuneOptions(
        out=tmp_path / "n",
        train="sick@negnli-rte=8",
        balance_by="negation",
        max_steps=1,
        batch_size=4,
        progress=False,
    )
    run = finetune(f"hf:{tiny}", options)
    description = run["data"]["train"]["description"]
    assert description["balance_by"] == "negation"
    assert description["parts"]["sick@negnli-rte"]["negated"] == {" yes": 2, " no": 2}
    assert "--balance-by negation" in run["command"]


def test_mix_options_without_a_mix_are_clear_errors(tiny, tmp_path, capsys):
    for flags, message in (
        (["--train", "tind", "--unlikelihood-weight", "1"], "needs a training mix"),
        (["--train", "tind", "--phases", "tind"], "needs a training mix"),
        (["--train", "scone=4", "--dev", "0.1"], "takes --dev-per-format"),
        (["--train", "scone=4", "--select-by", "worst-format"], "needs --dev-per-format"),
        (["--train", "scone=4,nope=2"], "unknown training source 'nope'"),
        (["--train", "scone=4,replay=2"], "give --kl-weight W with replay=N"),
        (["--train", "tind", "--balance-by", "negation"], "--balance-by needs a training mix"),
    ):
        assert main(["finetune", "--model", f"hf:{tiny}", "--out", str(tmp_path / "x"), *flags]) == 2
        assert message in capsys.readouterr().err


def test_sources_render_the_evaluation_prompt_with_the_gold_answer():
    shared_data_path("scone")
    shared_data_path("training", "sick")
    from negkit.benchmarks.negnli import RTE_PROMPT
    from negkit.benchmarks.scone import PROMPT as SCONE_PROMPT
    from negkit.kit.data.nli import read_sick
    from negkit.kit.training_data.declaration import training_source

    scone = training_source("scone").build(None, None)
    assert len(scone.examples) == 6 * 1002 and scone.description["split"] == "train"
    first = scone.examples[0]
    assert first.prompt.startswith("Assume that ") and first.completion in (" Yes", " No")
    assert first.choices == (" Yes", " No") and first.pair.startswith("row:") and first.format == "scone"
    assert {example.negated for example in scone.examples} == {True, False}
    sick = training_source("sick@negnli-rte").build(None, None)
    pairs = read_sick(shared_data_path("training", "sick", "SICK.txt"))
    by_label = {"entailment": " yes", "neutral": " no", "contradiction": " no"}
    for example, pair in zip(sick.examples, pairs):
        assert example.completion == by_label[pair.label]
        assert example.prompt == RTE_PROMPT.format(premise=pair.premise, hypothesis=pair.hypothesis)
    assert SCONE_PROMPT.split("{")[0] == "Assume that "
    with_not = [example for example, pair in zip(sick.examples, pairs) if " not " in f" {pair.hypothesis} "]
    assert with_not and all(example.negated for example in with_not)
