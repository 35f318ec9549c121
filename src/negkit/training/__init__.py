"""Fine-tuning: LoRA supervised fine-tuning of causal LMs on negation data, and NLI classifiers.

- :func:`finetune` (``negkit finetune``): LoRA on a suite's training set (``--train NAME``: the suites' ``training``,
  e.g. TIND with the paper's subsets, Thunder-NUBench pairs) or any prompt/completion JSON Lines, for ``default``,
  ``hf:`` and ``gguf:`` models; ``nli:`` models are fine-tuned whole on NLI pairs. Options:
  :class:`FinetuneOptions` (a source's own options, e.g. TIND's subsets, in ``subset``).
- :func:`merge_adapter` (``negkit merge-adapter``): the base model with the adapter merged into its weights.
- Evaluating a fine-tuned model is ``negkit eval --adapter DIR`` (:mod:`negkit.models.adapter`).

It names no benchmark: a suite's training set comes from the suite registry (a benchmark declares it with
:mod:`negkit.kit.training_data`). See docs/finetuning.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from negkit.kit.training_data.examples import Example, TrainingData
from negkit.training.options import FinetuneOptions

if TYPE_CHECKING:
    from negkit.training.lm import finetune
    from negkit.training.merge import merge_adapter

__all__ = ["Example", "FinetuneOptions", "TrainingData", "finetune", "merge_adapter"]


def __getattr__(name: str) -> Any:
    """``finetune`` and ``merge_adapter`` load torch and transformers: imported when first used, so that a suite's
    training source (and ``negkit --help``) works in an install without the models extra."""
    if name == "finetune":
        from negkit.training.lm import finetune

        return finetune
    if name == "merge_adapter":
        from negkit.training.merge import merge_adapter

        return merge_adapter
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
