"""Run ``negkit.training.finetune`` on a tiny model in a child process (for the kill -9 test).

Usage: python finetune_child.py MODEL_FOLDER TRAIN_FILE OUT_FOLDER SLEEP_SECONDS
Each optimizer step sleeps SLEEP_SECONDS so that the parent can kill the run between checkpoints.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parents[1] / "src")]

import tiny_models  # noqa: E402,F401  (one torch thread, as in the parent)
from transformers import TrainerCallback  # noqa: E402

import negkit.training.trainer as trainer_module  # noqa: E402
from negkit.training import FinetuneOptions, finetune  # noqa: E402

#: The options of the run the test compares (dropout on, development data, several checkpoints).
OPTIONS = dict(
    max_steps=12,
    batch_size=4,
    save_steps=3,
    logging_steps=1,
    dev="0.2",
    lora_dropout=0.1,
    keep_checkpoints=2,
    progress=False,
)


class Sleep(TrainerCallback):
    def __init__(self, seconds: float) -> None:
        self.seconds = seconds

    def on_step_end(self, args, state, control, **kwargs):
        time.sleep(self.seconds)
        return control


def main() -> None:
    model, train, out, seconds = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
    callbacks = trainer_module.negkit_callbacks
    trainer_module.negkit_callbacks = lambda options, folder: [*callbacks(options, folder), Sleep(seconds)]
    finetune(f"hf:{model}", FinetuneOptions(out=out, train=train, **OPTIONS))


if __name__ == "__main__":
    main()
