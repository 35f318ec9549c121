"""The kit: the generic parts a benchmark composes (task kinds, metrics and intervals, tables and figures, the
LM Evaluation Harness export, training examples and fine-tuning, the suite registry). It names no benchmark."""
