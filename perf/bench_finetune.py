"""Training speed of ``negkit finetune`` (LoRA) on a Llama-style model built from a config with random weights.

Speed does not depend on the weights (and the hub is unreachable from the development machines), so the model is
built from a config of the chosen size, saved with a small byte-level tokenizer (its ids are valid for any
vocabulary), and fine-tuned through the real ``negkit finetune`` path on invented TIND-like true/false examples in
the chat format (a shared system and instruction prefix, a short sentence, the answer). Prints training tokens/s
(every example token), computed tokens/s (a batch's shared prefix counted once), the shared-prefix saving, and on a
GPU an estimate of the model FLOPs utilisation against the bf16 matmul rate measured here.

    PYTHONPATH=src:tests python perf/bench_finetune.py --size small --steps 20          # CPU reference
    PYTHONPATH=src:tests python perf/bench_finetune.py --size 1b --steps 50 --device cuda --dtype bfloat16

Sizes: ``tiny`` (2 layers, hidden 64: a smoke test), ``small`` (SmolLM2-135M's shape: 30 layers, hidden 576),
``1b`` (TinyLlama-1.1B's shape: 22 layers, hidden 2048, vocabulary 32,000).
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import tempfile
import time
from pathlib import Path

import torch

sys.path[:0] = [str(Path(__file__).resolve().parents[1] / "src"), str(Path(__file__).resolve().parents[1] / "tests")]

SIZES = {
    "tiny": dict(
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        vocab_size=4096,
    ),
    "small": dict(
        hidden_size=576,
        intermediate_size=1536,
        num_hidden_layers=30,
        num_attention_heads=9,
        num_key_value_heads=3,
        vocab_size=49152,
    ),
    "1b": dict(
        hidden_size=2048,
        intermediate_size=5632,
        num_hidden_layers=22,
        num_attention_heads=32,
        num_key_value_heads=4,
        vocab_size=32000,
    ),
}
NOUNS = [
    "dog",
    "cat",
    "rose",
    "car",
    "sun",
    "snow",
    "iron",
    "glass",
    "water",
    "bird",
    "fish",
    "triangle",
    "oak",
    "violin",
    "river",
    "bread",
    "copper",
    "eagle",
    "tulip",
    "hammer",
]
KINDS = ["an animal", "a plant", "a metal", "a tool", "a vehicle", "a liquid", "a shape", "a food"]


def build_model(folder: Path, size: str) -> Path:
    from tiny_models import tiny_tokenizer
    from transformers import LlamaConfig, LlamaForCausalLM

    tokenizer = tiny_tokenizer(chat_template=True)
    config = LlamaConfig(
        max_position_embeddings=512,
        bos_token_id=1,
        eos_token_id=2,
        pad_token_id=0,
        tie_word_embeddings=True,
        **SIZES[size],
    )
    torch.manual_seed(0)
    LlamaForCausalLM(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def write_examples(path: Path, count: int) -> None:
    """Invented true/false statements (not TIND sentences), each as a chat user turn and a True/False answer."""
    lines = []
    for index in range(count):
        noun, kind = NOUNS[index % len(NOUNS)], KINDS[(index * 7) % len(KINDS)]
        negated = index % 3 == 0
        sentence = f"A {noun} is {'not ' if negated else ''}{kind}."
        prompt = f"Is the following statement True or False? Answer only True or False. {sentence}"
        lines.append(json.dumps({"prompt": prompt, "completion": "True" if (index % 2) else "False"}))
    path.write_text("\n".join(lines) + "\n")


def matmul_rate(device: str, dtype: torch.dtype, size: int = 4096, repeats: int = 10) -> float:
    """Measured matmul FLOP/s on this device in this dtype."""
    a = torch.randn(size, size, device=device, dtype=dtype)
    b = torch.randn(size, size, device=device, dtype=dtype)
    for _ in range(2):
        a @ b
    if device.startswith("cuda"):
        torch.cuda.synchronize()
    started = time.perf_counter()
    for _ in range(repeats):
        a @ b
    if device.startswith("cuda"):
        torch.cuda.synchronize()
    return 2 * size**3 * repeats / (time.perf_counter() - started)


def main() -> int:
    parser = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.splitlines()[0])
    parser.add_argument("--size", choices=tuple(SIZES), default="small")
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--dtype", default="float32", choices=("float32", "bfloat16", "float16"))
    parser.add_argument("--threads", type=int, help="torch CPU threads")
    parser.add_argument("--no-share-prefix", action="store_true")
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    from negkit.training import FinetuneOptions, finetune

    with tempfile.TemporaryDirectory(prefix="negkit-bench-finetune-") as temporary:
        root = Path(temporary)
        model = build_model(root / "model", args.size)
        data = root / "train.jsonl"
        write_examples(data, args.batch_size * (args.steps + 2))
        options = FinetuneOptions(
            out=root / "out",
            train=str(data),
            chat=True,
            max_steps=args.steps,
            batch_size=args.batch_size,
            logging_steps=max(1, args.steps // 4),
            save_steps=10**6,
            save_minutes=None,
            dtype=args.dtype,
            device=args.device,
            progress=False,
            share_prefix=not args.no_share_prefix,
        )
        started = time.perf_counter()
        run = finetune(f"hf:{model}", options)
        wall = time.perf_counter() - started
    result, lora = run["result"], run["lora"]
    seconds = result["session_train_seconds"]
    computed = result["session_computed_tokens"]
    print(
        f"model: Llama {args.size} from a config ({lora['parameters'] - lora['trainable_parameters']:,} frozen "
        f"parameters, LoRA r={lora['r']} on {len(lora['target_modules'])} modules: "
        f"{lora['trainable_parameters']:,} trainable); {args.device} {args.dtype}; "
        f"torch {torch.__version__}, {torch.get_num_threads()} threads, {platform.machine()}"
    )
    print(
        f"{args.steps} steps x batch {args.batch_size}: {result['session_tokens']:,} example tokens, "
        f"{computed:,} computed ({1 - computed / result['session_tokens']:.0%} saved by the shared prefix) "
        f"in {seconds:.1f} s of training ({wall:.1f} s with loading)"
    )
    print(
        f"training tokens/s: {result['session_tokens_per_second']:,.0f} (computed tokens/s: {computed / seconds:,.0f})"
    )
    if args.device.startswith("cuda"):
        dtype = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}[args.dtype]
        peak = matmul_rate(args.device, dtype)
        frozen = lora["parameters"] - lora["trainable_parameters"]
        # LoRA: forward 2N and backward through the frozen weights 2N FLOPs per computed token (no weight gradients)
        achieved = 4 * frozen * computed / seconds
        print(
            f"{torch.cuda.get_device_name(0)}: about {achieved / 1e12:.1f} TFLOP/s of model work, "
            f"{achieved / peak:.0%} of the {peak / 1e12:.0f} TFLOP/s {args.dtype} matmul rate measured here"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
