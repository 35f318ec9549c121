"""Run ``evaluate`` on a tiny model in a child process (for the kill -9 test).

Usage: python eval_child.py MODEL_FOLDER DATA_FOLDER OUT_FOLDER ASKED_LOG
Every context the model is asked about is appended to ASKED_LOG before it is answered; each model call
sleeps a little so that the parent can kill the run in the middle (a run the test makes in its own process, such
as a resumed one, has no need to: ``SlowRecordingModel(..., pause=0)``).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parents[1] / "src")]

import torch  # noqa: E402

from negkit.commands.eval.evaluate import evaluate  # noqa: E402
from negkit.commands.eval.options import EvalOptions  # noqa: E402
from negkit.models.hf_causal import HFCausalLM  # noqa: E402


class SlowRecordingModel:
    """Delegates to a real model; logs every asked context and sleeps per call."""

    def __init__(self, model: HFCausalLM, log: Path, pause: float = 0.15) -> None:
        self.inner, self.log, self.pause = model, log, pause
        self.fingerprint, self.is_encoder_decoder = model.fingerprint, model.is_encoder_decoder
        self.has_chat_template = model.has_chat_template

    def apply_chat_template(self, messages):
        return self.inner.apply_chat_template(messages)

    def next_token_logprobs(self, contexts, candidates):
        with open(self.log, "a", encoding="utf-8") as handle:
            handle.writelines(repr(context) + "\n" for context in contexts)
        time.sleep(self.pause)
        return self.inner.next_token_logprobs(contexts, candidates)


def main() -> None:
    model_folder, data, out, log = sys.argv[1:5]
    torch.set_num_threads(1)
    model = SlowRecordingModel(HFCausalLM.from_pretrained(model_folder, batch_size=2), Path(log))
    evaluate(model, ["tind"], EvalOptions(data=data, split="test", out=out, progress=False, chunk_size=4))
    print("finished", flush=True)


if __name__ == "__main__":
    main()
