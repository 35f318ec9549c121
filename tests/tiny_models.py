"""Tiny random models and tokenizers built in the tests (no downloads)."""

from __future__ import annotations

from pathlib import Path

import torch

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


def tiny_tokenizer(chat_template: bool = True, add_bos: bool = True):
    """A byte-level BPE tokenizer trained on a few sentences, wrapped for transformers."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
    from transformers import PreTrainedTokenizerFast

    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=400, special_tokens=SPECIAL, initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tokenizer.train_from_iterator(CORPUS * 3, trainer)
    if add_bos:
        bos = tokenizer.token_to_id("<s>")
        tokenizer.post_processor = processors.TemplateProcessing(single="<s> $A", special_tokens=[("<s>", bos)])
    else:
        tokenizer.post_processor = processors.ByteLevel(trim_offsets=False)
    wrapped = PreTrainedTokenizerFast(
        tokenizer_object=tokenizer, bos_token="<s>", eos_token="</s>", pad_token="<pad>",
        additional_special_tokens=["<|im_start|>", "<|im_end|>"],
    )
    if chat_template:
        wrapped.chat_template = CHAT_TEMPLATE
    return wrapped


def tiny_llama(vocab_size: int, seed: int = 0):
    """A 2-layer Llama with hidden size 32 and random weights."""
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(seed)
    config = LlamaConfig(
        vocab_size=vocab_size, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=512,
        bos_token_id=1, eos_token_id=2, pad_token_id=0,
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


def tiny_causal_lm(chat_template: bool = True, prefix_reuse: bool = True, batch_size: int | None = 4, **options):
    """An HFCausalLM around a tiny random model built in memory."""
    from negkit.models.hf_causal import HFCausalLM
    from negkit.models.hf_common import fingerprint_for

    tokenizer = tiny_tokenizer(chat_template=chat_template)
    model = tiny_llama(len(tokenizer))
    fingerprint = fingerprint_for("hf", model, "tiny-llama", "float32")
    return HFCausalLM(model, tokenizer, fingerprint, batch_size=batch_size, prefix_reuse=prefix_reuse, **options)


def plain_next_token_logprobs(lm, context: str, candidates: list[str]) -> dict[str, float]:
    """The reference: one full forward pass of one prompt, no batching, no cache."""
    ids, _ends = lm.rules.encode_context(context)
    with torch.no_grad():
        logits = lm.model(input_ids=torch.tensor([ids])).logits[0, -1]
    logprobs = torch.log_softmax(logits.float(), dim=-1)
    return {candidate: float(logprobs[lm.rules.first_token_id(candidate)]) for candidate in candidates}
