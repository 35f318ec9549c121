"""Negation cue and scope resolution systems with a fit/predict shape.

* :mod:`negkit.resolution.baseline` -- the punctuation baseline (Punct-BL) of Sineva et al. (2021);
* :mod:`negkit.resolution.cue_tagger` -- a transformer token classifier for negation cues;
* :mod:`negkit.resolution.scope_resolver` -- transformer scope resolvers given a cue (NegBERT-style cue
  markers, or a cue embedding feeding a BiLSTM);
* :mod:`negkit.resolution.train` -- the two-stage system (cue tagger + scope resolver), training, saving,
  loading and prediction;
* :mod:`negkit.resolution.evaluate` -- in-domain and cross-domain evaluation;
* :mod:`negkit.resolution.tagging` -- tagging raw text.

Every system reads and returns :class:`~negkit.resolution.instances.ResolutionSentence` objects; the CD-SCO
writer turns them into system files for the scorer.
"""
