"""The negation-resolution corpora as data sets: where each comes from (:mod:`.sources`: its files declared with
their URLs, hashes and sizes) and the papers behind it (:mod:`.citations`), for ``negkit data get`` and ``negkit
cite``; the readers and scorers live in :mod:`negkit.resolution`."""
