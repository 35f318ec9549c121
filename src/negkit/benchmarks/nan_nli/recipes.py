"""NaN-NLI's fine-tuning recipes: the hyper-parameters a paper gives, as :class:`FinetuneOptions` values
(``negkit finetune --recipe NAME``). A recipe fills the options left at negkit's defaults; options set to
anything else win.

- ``nan-nli-mnli``: NaN-NLI (Truong et al., 2022), Appendix A, Table 11: the first stage, an NLI classifier
  (RoBERTa base in the paper) fine-tuned on MNLI: batch 16, learning rate 3e-5, 3 epochs, Adam.
- ``nan-nli``: the same appendix, Table 12: the second stage, on NegNLI (the MNLI file of Hossain et al., 2020),
  split 85:15 into training and validation pairs (drawn with ``--seed``): batch 16, learning rate 2e-5, 5 epochs,
  Adam.

The paper names no learning-rate schedule, warm-up or weight decay; the recipes use the transformers Trainer's
defaults (linear decay, no warm-up) and no weight decay, so that the Trainer's AdamW is Adam.
"""

from __future__ import annotations

from negkit.kit.training_data.declaration import Recipe

_ADAM = {"batch_size": 16, "scheduler": "linear", "warmup_ratio": 0.0, "weight_decay": 0.0}

RECIPES: tuple[Recipe, ...] = (
    Recipe(
        "nan-nli-mnli",
        "NaN-NLI Appendix A, stage 1 (MNLI): batch 16, lr 3e-5, 3 epochs, Adam",
        {**_ADAM, "learning_rate": 3e-5, "epochs": 3.0},
    ),
    Recipe(
        "nan-nli",
        "NaN-NLI Appendix A, stage 2 (NegNLI MNLI file, 85:15 split): batch 16, lr 2e-5, 5 epochs, Adam",
        {**_ADAM, "learning_rate": 2e-5, "epochs": 5.0, "dev": "0.15"},
    ),
)
