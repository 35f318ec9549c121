"""Tiny random models and tokenizers built in the tests (no downloads)."""

from __future__ import annotations

import copy
import functools
from pathlib import Path

import torch

# Tiny models run fastest on one thread; more threads only contend on a shared machine.
torch.set_num_threads(1)

CORPUS = [
    "Is the following statement True or False? Answer only True or False.",
    "A dog is an animal. A cat is not a plant. True False true false",
    "The sun is hot and the snow is cold; a car is a vehicle, a rose is a flower.",
    "Birds can fly, fish cannot walk, and a triangle is not a circle.",
    "Here are some examples: water is wet. Iron is a metal. Glass is not a liquid.",
]
CHAT_TEMPLATE = (
    "{% for message in messages %}<|im_start|>{{ message['role'] }}\n{{ message['content'] }}<|im_end|>\n"
    "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
SPECIAL = ["<pad>", "<s>", "</s>", "<|im_start|>", "<|im_end|>"]


def tiny_tokenizer(chat_template: bool = True, add_bos: bool = True, append_eos: bool = False):
    """A byte-level BPE tokenizer trained on a few sentences, wrapped for transformers.

    ``add_bos`` puts ``<s>`` first (Llama style); ``append_eos`` puts ``</s>`` last (T5 style)."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
    from transformers import PreTrainedTokenizerFast

    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=400, special_tokens=SPECIAL, initial_alphabet=pre_tokenizers.ByteLevel.alphabet()
    )
    tokenizer.train_from_iterator(CORPUS * 3, trainer)
    if append_eos:
        eos = tokenizer.token_to_id("</s>")
        tokenizer.post_processor = processors.TemplateProcessing(single="$A </s>", special_tokens=[("</s>", eos)])
    elif add_bos:
        bos = tokenizer.token_to_id("<s>")
        tokenizer.post_processor = processors.TemplateProcessing(single="<s> $A", special_tokens=[("<s>", bos)])
    else:
        tokenizer.post_processor = processors.ByteLevel(trim_offsets=False)
    wrapped = PreTrainedTokenizerFast(
        tokenizer_object=tokenizer,
        bos_token="<s>",
        eos_token="</s>",
        pad_token="<pad>",
        additional_special_tokens=["<|im_start|>", "<|im_end|>"],
    )
    if chat_template:
        wrapped.chat_template = CHAT_TEMPLATE
    return wrapped


def tiny_llama(vocab_size: int, seed: int = 0):
    """A 2-layer Llama with hidden size 32 and random weights (built once per process, then copied)."""
    return copy.deepcopy(_tiny_llama(vocab_size, seed))


@functools.cache
def _tiny_llama(vocab_size: int, seed: int):
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(seed)
    config = LlamaConfig(
        vocab_size=vocab_size,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=512,
        bos_token_id=1,
        eos_token_id=2,
        pad_token_id=0,
    )
    model = LlamaForCausalLM(config).eval()
    with torch.no_grad():  # larger logits so that p(True) is far from 0.5 and varies by sentence
        model.lm_head.weight.mul_(20)
    return model


def save_tiny_causal(folder: Path, chat_template: bool = True) -> Path:
    """Write a tiny causal LM and its tokenizer to ``folder`` (loadable with from_pretrained)."""
    tokenizer = tiny_tokenizer(chat_template=chat_template)
    model = tiny_llama(len(tokenizer))
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def tiny_causal_lm(
    chat_template: bool = True,
    prefix_reuse: bool = True,
    batch_size: int | None = 4,
    device: str | None = None,
    **options,
):
    """An HFCausalLM around a tiny random model built in memory, on ``device`` (None: the tests' device,
    ``NEGKIT_TEST_DEVICE``, default the CPU; see tests/conftest.py)."""
    from conftest import TEST_DEVICE

    from negkit.models.hf_causal import HFCausalLM
    from negkit.models.hf_common import fingerprint_for

    tokenizer = tiny_tokenizer(chat_template=chat_template)
    model = tiny_llama(len(tokenizer))
    fingerprint = fingerprint_for("hf", model, "tiny-llama", "float32")
    model.to(device or TEST_DEVICE)
    return HFCausalLM(model, tokenizer, fingerprint, batch_size=batch_size, prefix_reuse=prefix_reuse, **options)


def model_device(model) -> torch.device:
    """Where ``model``'s inputs go (the device of its first parameter)."""
    return next(model.parameters()).device


def plain_next_token_logprobs(lm, context: str, candidates: list[str]) -> dict[str, float]:
    """The reference: one full forward pass of one prompt, no batching, no cache."""
    ids, _ends = lm.rules.encode_context(context)
    with torch.no_grad():
        logits = lm.model(input_ids=torch.tensor([ids], device=model_device(lm.model))).logits[0, -1]
    logprobs = torch.log_softmax(logits.float(), dim=-1)
    return {candidate: float(logprobs[lm.rules.first_token_id(candidate)]) for candidate in candidates}


def synthetic_truth_items(groups_per_pattern: int = 3, patterns: tuple[int, ...] = (1, 2, 5)):
    """Invented TIND-like items (not TIND sentences): every group has the four cells, twice."""
    from negkit.benchmarks.tind.types import PATTERN_NAMES, TruthItem, expected_label, make_item_id

    nouns = ["dog", "cat", "rose", "car", "sun", "snow", "iron", "glass", "water", "bird", "fish", "triangle"]
    items = []
    for pattern in patterns:
        for group in range(groups_per_pattern):
            noun = nouns[(pattern * 7 + group) % len(nouns)]
            other = nouns[(pattern * 3 + group + 5) % len(nouns)]
            sentences = [
                (False, False, f"A {noun} is an animal."),
                (False, True, f"A {noun} is not an animal."),
                (True, True, f"A {other} is not a plant."),
                (True, False, f"A {other} is a plant."),
                (False, False, f"The {noun} is hot."),
                (False, True, f"The {noun} is never hot."),
                (True, True, f"The {other} is not cold."),
                (True, False, f"The {other} is cold."),
            ]
            for index, (distractor, negated, sentence) in enumerate(sentences):
                items.append(
                    TruthItem(
                        item_id=make_item_id(pattern, group, index),
                        group_id=group,
                        pattern_id=pattern,
                        pattern=PATTERN_NAMES[pattern],
                        template_id=f"{index + 1}-1",
                        negation_type="verbal" if negated else "affirmation",
                        semantic_type="analytic" if negated else "none",
                        syntactic_scope="clausal" if negated else "none",
                        kind="Distractor" if distractor else "Input",
                        is_distractor=distractor,
                        label=expected_label(pattern, distractor, negated),
                        sentence=sentence,
                    )
                )
    return items


def tiny_t5(vocab_size: int, seed: int = 0):
    """A 2-layer T5 with d_model 32 and random weights."""
    from transformers import T5Config, T5ForConditionalGeneration

    torch.manual_seed(seed)
    config = T5Config(
        vocab_size=vocab_size,
        d_model=32,
        d_kv=8,
        d_ff=64,
        num_layers=2,
        num_heads=4,
        decoder_start_token_id=0,
        pad_token_id=0,
        eos_token_id=2,
    )
    model = T5ForConditionalGeneration(config).eval()
    with torch.no_grad():
        model.lm_head.weight.mul_(20)
    return model


def tiny_seq2seq_lm():
    """A tiny random T5 as negkit's encoder-decoder backend (batch 3), with a T5-style tokenizer."""
    from negkit.models.hf_common import fingerprint_for
    from negkit.models.hf_seq2seq import HFSeq2SeqLM

    tokenizer = tiny_tokenizer(chat_template=False, append_eos=True)
    model = tiny_t5(len(tokenizer))
    return HFSeq2SeqLM(model, tokenizer, fingerprint_for("hf", model, "tiny-t5", "float32"), batch_size=3)


def save_tiny_t5(folder: Path, seed: int = 0) -> Path:
    """Write :func:`tiny_t5` and a T5-style tokenizer (a final ``</s>``, no chat template) to ``folder``."""
    tokenizer = tiny_tokenizer(chat_template=False, append_eos=True)
    model = tiny_t5(len(tokenizer), seed)
    folder.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def save_tiny_classifier(folder: Path, labels: tuple[str, ...] | None = None, seed: int = 0) -> Path:
    """Write a 2-layer BERT sequence-pair classifier (hidden size 32, random weights) and a word-piece
    tokenizer to ``folder``. ``labels`` names its outputs in ``config.id2label``; None leaves the generic
    ``LABEL_0..2`` of a model without a trained head."""
    import re

    from transformers import BertConfig, BertForSequenceClassification, BertTokenizerFast

    words = sorted({word for line in CORPUS for word in re.findall(r"[a-z]+", line.lower())})
    folder.mkdir(parents=True, exist_ok=True)
    tokens = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *words, ".", ",", "?"]
    tokenizer = BertTokenizerFast(vocab={token: index for index, token in enumerate(tokens)})
    torch.manual_seed(seed)
    extra = (
        {"id2label": dict(enumerate(labels)), "label2id": {name: i for i, name in enumerate(labels)}}
        if labels
        else {"num_labels": 3}
    )
    config = BertConfig(
        vocab_size=len(tokenizer),
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=4,
        intermediate_size=64,
        max_position_embeddings=128,
        **extra,
    )
    BertForSequenceClassification(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder
