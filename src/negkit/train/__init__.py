"""Fine-tuning: LoRA supervised fine-tuning of causal LMs on negation data, and NLI classifiers.

- :func:`finetune` (``negkit finetune``): LoRA on a suite's training set (``--train NAME``: the suites' ``training``,
  e.g. TIND with the paper's subsets, Thunder-NUBench pairs) or any prompt/completion JSON Lines, for ``default``,
  ``hf:`` and ``gguf:`` models; ``nli:`` models are fine-tuned whole on NLI pairs. Options:
  :class:`FinetuneOptions`; TIND subsets: :class:`TindFilter`.
- :func:`merge_adapter` (``negkit merge-adapter``): the base model with the adapter merged into its weights.
- Evaluating a fine-tuned model is ``negkit eval --adapter DIR`` (:mod:`negkit.models.adapter`).

This package may import the suites and what is below them; only the command line imports it. See docs/finetuning.md.
"""

from negkit.suites.tind.training import TindFilter
from negkit.tasks.training import Example, TrainingData
from negkit.train.lm import finetune
from negkit.train.merge import merge_adapter
from negkit.train.options import FinetuneOptions

__all__ = ["Example", "FinetuneOptions", "TindFilter", "TrainingData", "finetune", "merge_adapter"]
