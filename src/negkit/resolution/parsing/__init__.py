"""Negation resolution as dependency graph parsing (the DP systems of Sineva et al. 2021, after Kurtz et al. 2020).

* :mod:`.network`: a transformer encoder with a scalar mix of its layers, an optional BiLSTM, and deep biaffine
  edge and label scorers (Dozat & Manning 2018);
* :mod:`.loop`: a resumable training loop (time budget, checkpoints, Noam schedule, one learning rate);
* :mod:`.parser`: :class:`~negkit.resolution.parsing.parser.NegationParser`, trained on the graph encodings of
  :mod:`negkit.resolution.graphs` and predicting negation instances;
* :mod:`.ud`: the syntactic stage of the ``-synt`` systems (UD English EWT dependency parsing).
"""
