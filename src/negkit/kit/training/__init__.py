"""Fine-tuning: LoRA supervised fine-tuning of causal LMs on negation data, and NLI classifiers.

- :func:`finetune` (``negkit finetune``): LoRA on a suite's training set (``--train NAME``: the suites' ``training``,
  e.g. TIND with the paper's subsets, Thunder-NUBench pairs) or any prompt/completion JSON Lines, for ``default``,
  ``hf:`` and ``gguf:`` models; ``nli:`` models are fine-tuned whole on NLI pairs. Options:
  :class:`FinetuneOptions` (a source's own options, e.g. TIND's subsets, in ``subset``).
- :func:`merge_adapter` (``negkit merge-adapter``): the base model with the adapter merged into its weights.
- Evaluating a fine-tuned model is ``negkit eval --adapter DIR`` (:mod:`negkit.models.adapter`).

Part of the kit: it names no benchmark (a suite's training set comes from the suite registry). See docs/finetuning.md.
"""

from negkit.kit.training.examples import Example, TrainingData
from negkit.kit.training.lm import finetune
from negkit.kit.training.merge import merge_adapter
from negkit.kit.training.options import FinetuneOptions

__all__ = ["Example", "FinetuneOptions", "TrainingData", "finetune", "merge_adapter"]
