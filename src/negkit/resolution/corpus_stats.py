"""Statistics of the negation-resolution corpora per split, and their scope-length distributions.

The library side of ``negkit resolution stats``:

* :func:`split_statistics` counts documents, sentences, negated sentences, negation instances, non-empty scopes
  and scope tokens for each split (train, dev, test and all) of CD-SCO (the *SEM 2012 files) and of negkit's
  fixed document splits of BioScope abstracts and SFU Review (Sineva et al. 2021 give the same counts for their
  splits in their appendix's data table);
* :func:`scope_lengths` gives the negation instances of a corpus by scope length, the data of that paper's
  Figures 3-5 (CD-SCO, BioScope abstracts, SFU Review).

Scope length is the NIS scope length (:func:`negkit.resolution.instances.scope_length`): scope tokens with a word
character, so punctuation is left out the same way on corpora with and without POS tags. Scopes follow negkit's
common convention (an instance's own cue words are not in its scope; docs/corpora.md).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from negkit.errors import NegkitError
from negkit.resolution.instances import ResolutionSentence, scope_length, scope_length_counts
from negkit.resolution.splits import (
    ALL_CORPORA,
    CORPORA,
    FILE_SPLIT_CORPORA,
    SPLITS,
    document_id,
    documents_of_split,
    load_split,
    read_document_corpus,
)

#: The row holding every split of a corpus together.
ALL = "all"


@dataclass(frozen=True)
class SplitStatistics:
    """Counts of one split of one corpus (or of one file: ``split`` is then ``"all"``)."""

    corpus: str
    split: str
    documents: int
    sentences: int
    negated_sentences: int
    instances: int
    scopes: int
    scope_tokens: int

    @property
    def mean_scope_length(self) -> float:
        """Mean scope length over the instances with a non-empty scope (0 when there is none)."""
        return self.scope_tokens / self.scopes if self.scopes else 0.0

    def to_dict(self) -> dict[str, object]:
        return {**asdict(self), "mean_scope_length": round(self.mean_scope_length, 4)}


def count_split(corpus: str, split: str, sentences: Iterable[ResolutionSentence]) -> SplitStatistics:
    """Count one collection of sentences; documents are told apart by :func:`~negkit.resolution.splits.document_id`."""
    documents: set[str] = set()
    n_sentences = negated = instances = scopes = tokens = 0
    for sentence in sentences:
        documents.add(document_id(sentence))
        n_sentences += 1
        negated += bool(sentence.instances)
        for instance in sentence.instances:
            length = scope_length(instance)
            instances += 1
            scopes += length > 0
            tokens += length
    return SplitStatistics(corpus, split, len(documents), n_sentences, negated, instances, scopes, tokens)


def corpus_splits(corpus: str, data: str | Path | None = None) -> dict[str, list[ResolutionSentence]]:
    """The sentences of each split of ``corpus`` (BioScope and SFU are read once and divided by document; CD-SCO
    and NoReC_neg have a file per split)."""
    if corpus in FILE_SPLIT_CORPORA:
        return {split: load_split(corpus, split, data) for split in SPLITS}
    sentences = [sentence for sentence in read_document_corpus(corpus, data) if sentence.tokens]
    result = {}
    for split in SPLITS:
        wanted = set(documents_of_split(corpus, split))
        result[split] = [sentence for sentence in sentences if document_id(sentence) in wanted]
    return result


@dataclass(frozen=True)
class CorpusStatisticsReport:
    """What ``negkit resolution stats`` shows: per-split (or per-file) counts and scope-length distributions."""

    rows: list[SplitStatistics]
    #: Corpus or file name -> {scope length: negation instances}.
    scope_lengths: dict[str, dict[int, int]]

    def to_dict(self) -> dict[str, object]:
        return {
            "rows": [row.to_dict() for row in self.rows],
            "scope_lengths": {
                name: {str(k): v for k, v in counts.items()} for name, counts in self.scope_lengths.items()
            },
        }


def split_statistics(corpora: Sequence[str] = CORPORA, data: str | Path | None = None) -> CorpusStatisticsReport:
    """Counts of the train, dev and test splits of each corpus and of the whole corpus, and the scope-length
    distribution of each whole corpus (every split together)."""
    rows: list[SplitStatistics] = []
    lengths: dict[str, dict[int, int]] = {}
    for corpus in corpora:
        if corpus not in ALL_CORPORA:
            raise NegkitError(f"unknown corpus {corpus!r} (expected one of {', '.join(ALL_CORPORA)})")
        splits = corpus_splits(corpus, data)
        rows.extend(count_split(corpus, split, sentences) for split, sentences in splits.items())
        everything = [sentence for split in SPLITS for sentence in splits[split]]
        rows.append(count_split(corpus, ALL, everything))
        lengths[corpus] = scope_length_counts(everything)
    return CorpusStatisticsReport(rows, lengths)
