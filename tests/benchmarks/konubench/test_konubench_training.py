"""KoNUBench's training source (``negkit finetune --train konubench=N``) on the real data: each example is the
evaluation's prompt of a train item with its gold answer (the standard negation) as the completion, and no item of
the test (or validation) split is among the examples."""

from __future__ import annotations

from conftest import shared_data_path

from negkit.benchmarks.konubench import DESCRIPTION, KONUBENCH, read_konubench
from negkit.kit.suites import get_task
from negkit.kit.training_data.declaration import training_sources


def test_training_examples_are_the_eval_prompt_and_the_gold_answer():
    folder = shared_data_path("konubench")
    source = training_sources()["konubench"]
    assert source.in_distribution == "konubench"
    data = source.build(None, None)
    train = read_konubench(folder, "train")
    assert len(data.examples) == len(train) == 2500
    assert [example.origin for example in data.examples] == [item.item_id for item in train]
    assert [path.name for path in data.files] == ["train.json"]
    evaluation = get_task("konubench")  # what negkit eval --tasks konubench asks (cloze prompt, zero-shot)
    for example, item, requests in zip(data.examples, train, evaluation.requests(train)):
        assert example.prompt == requests[0].context == f"{DESCRIPTION}원문: {item.sentence}\n부정문:"
        assert example.completion == requests[item.gold].continuation == " " + item.choices[0]
        assert example.choices == tuple(request.continuation for request in requests)
        assert example.choices == tuple(" " + candidate for candidate in item.candidates)
        assert not example.eos and example.format == "konubench"
    assert KONUBENCH.task().gold_choice(train[0]) == 0


def test_no_test_or_validation_item_is_a_training_example():
    folder = shared_data_path("konubench")
    examples = training_sources()["konubench"].build(None, None).examples
    prompts = {example.prompt for example in examples}
    completions = {example.completion for example in examples}
    evaluation = get_task("konubench")
    for split in ("test", "validation"):
        items = read_konubench(folder, split)
        contexts = [requests[0].context for requests in evaluation.requests(items)]
        assert not prompts & set(contexts)  # no evaluation prompt is trained on
        assert not completions & {" " + item.choices[0] for item in items}  # nor any gold answer
        assert not {example.origin for example in examples} & {item.item_id for item in items}


def test_a_mix_draws_konubench_examples_without_answer_quotas():
    """Each item has its own answer (a sentence): the mix draws them freely and counts examples, not answers."""
    from types import SimpleNamespace

    from negkit.training.mix import build_mix

    shared_data_path("konubench")
    options = SimpleNamespace(
        train="konubench=40", phases=None, dev_per_format=8, balance_by="answer", seed=0, batch_size=8
    )
    train, dev = build_mix(None, options)
    assert len(train.examples) == 40 and len(dev.examples) == 8
    assert train.description["parts"]["konubench"] == {"phase": 0, "pairs": 0, "examples": 40}
    assert not {e.origin for e in train.examples} & {e.origin for e in dev.examples}
    assert all(e.completion in e.choices and e.format == "konubench" for e in train.examples)
