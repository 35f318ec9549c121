"""The papers' studies built on the benchmarks: they sit above the commands and run evaluations through them.

- :mod:`negkit.studies.tind`: TIND's generator (the data set rebuilt from WordNet), the Figure 2 transfer runs
  (fine-tune on one subset, evaluate on every other) and the Table 3 human-evaluation sheets;
- :mod:`negkit.studies.nubench`: Thunder-NUBench's prompt sweep (Tables 11-14);
- :mod:`negkit.studies.nan_nli`: NaN-NLI's analyses (the chi-squared tests of Table 4, the gender-swapped premises,
  BERTScore of the pairs).

Their commands are ``negkit tind ...``, ``negkit nubench ...`` and ``negkit nan-nli ...`` (:mod:`negkit.cli`).
"""
