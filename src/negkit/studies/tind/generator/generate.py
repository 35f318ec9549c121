"""The TIND generator: triples -> distractors -> sentences -> split -> raw files and JSON Lines.

``generate_groups`` instantiates every selected triple of the requested patterns; ``write_generation`` writes
the raw layout (``raw/#NN.Pattern.txt`` and ``raw/example_count.txt``, byte-compatible with the authors'
release) and the HF layout (``jsonl/{train,validation,test}.jsonl``). ``seed`` fixes every distractor;
the triples and the split do not depend on it (the split has its own ``split_seed``), so two seeds give the
same groups with other distractors.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from negkit.benchmarks.tind.data import format_example_counts, split_groups, write_tind_jsonl, write_tind_raw
from negkit.benchmarks.tind.split import SplitCounts
from negkit.benchmarks.tind.types import DistractorRef, SourceTriple, TindGroup
from negkit.io.atomic import atomic_write_text, make_folder
from negkit.studies.tind.generator.distractors import DistractorRules, DistractorSampler
from negkit.studies.tind.generator.realise import Realiser
from negkit.studies.tind.generator.resources import SideResources, align_wordnet, load_side_resources
from negkit.studies.tind.generator.select import TripleSelector
from negkit.studies.tind.generator.wordnet import WordNet

#: Per pattern, the distractor roles: (header label, synset form?, number of the replaced synset).
DISTRACTOR_ROLES: dict[int, tuple[tuple[str, bool, int], ...]] = {
    1: (("Distractor", True, 1),),
    2: (("Distractor-1", False, 1), ("Distractor-2", True, 2)),
    3: (("Distractor-1", False, 1), ("Distractor-2", False, 2)),
    4: (("Distractor-1", False, 1), ("Distractor-2", False, 2)),
    9: (("Distractor", False, 2),),
}
_DEFAULT_ROLES = (("Distractor", False, 1),)


@dataclass
class Generator:
    """Everything generation needs, loaded once: WordNet, side resources, selection, distractors, realiser."""

    wordnet: WordNet
    resources: SideResources
    #: Article and plural rules of the realiser: "release" (the authors' data) or "corrected" English.
    spelling: str = "release"

    @classmethod
    def load(
        cls, resources_folder: str | Path, wordnet_folder: str | Path | None = None, spelling: str = "release"
    ) -> Generator:
        """Load WordNet (aligned to Princeton offsets) and the side resources in ``resources_folder``."""
        wordnet = WordNet(wordnet_folder)
        resources = load_side_resources(resources_folder)
        align_wordnet(wordnet, resources)
        return cls(wordnet, resources, spelling)

    def __post_init__(self) -> None:
        self.selector = TripleSelector(self.wordnet, self.resources)
        self.rules = DistractorRules(self.wordnet, self.resources)
        self.sampler = DistractorSampler(self.rules, self.selector.core)
        self.realiser = Realiser(self.wordnet, self.spelling)

    def triples(self, pattern_id: int, limit: int | None = None) -> list[SourceTriple]:
        """The pattern's triples in group order (the first ``limit`` of them if given)."""
        found = self.selector.triples(pattern_id)
        return found[:limit] if limit is not None else found

    def distractors(self, pattern_id: int, group_id: int, source: SourceTriple, seed: int) -> tuple[DistractorRef, ...]:
        """The group's distractors; each role draws from its own generator seeded by (seed, pattern, group, role)."""
        chosen = []
        for label, synset_form, number in DISTRACTOR_ROLES.get(pattern_id, _DEFAULT_ROLES):
            rng = random.Random(f"negkit-tind-distractor/{seed}/{pattern_id}/{group_id}/{label}")
            chosen.append(self.sampler.draw(source, label, number, synset_form, rng))
        return tuple(chosen)

    def generate_groups(
        self, seed: int = 0, patterns: Iterable[int] = range(1, 12), limit: int | None = None
    ) -> list[TindGroup]:
        """Every group of the requested patterns, numbered 1, 2, ... within each pattern."""
        groups = []
        for pattern_id in patterns:
            for group_id, source in enumerate(self.triples(pattern_id, limit), start=1):
                distractors = self.distractors(pattern_id, group_id, source, seed)
                groups.append(self.realiser.realise(pattern_id, group_id, source, distractors))
        return groups


def generation_counts(groups: Iterable[TindGroup], split_seed: int = 0) -> dict[int, SplitCounts]:
    """Per pattern: total groups and groups per split, as ``example_count.txt`` gives them."""
    groups = list(groups)
    splits = split_groups(groups, split_seed)
    counts = {}
    for pattern_id in sorted({group.pattern_id for group in groups}):
        sizes = [sum(1 for group in splits[name] if group.pattern_id == pattern_id) for name in splits]
        counts[pattern_id] = SplitCounts(sum(sizes), *sizes)
    return counts


def write_generation(groups: list[TindGroup], folder: str | Path, split_seed: int = 0) -> list[Path]:
    """Write ``raw/`` (pattern files + ``example_count.txt``) and ``jsonl/{split}.jsonl`` under ``folder``."""
    folder = Path(folder)
    written = write_tind_raw(groups, folder / "raw")
    counts_path = folder / "raw" / "example_count.txt"
    atomic_write_text(counts_path, format_example_counts(generation_counts(groups, split_seed)))
    written.append(counts_path)
    make_folder(folder / "jsonl")
    for name, members in split_groups(groups, split_seed).items():
        path = folder / "jsonl" / f"{name}.jsonl"
        write_tind_jsonl((item for group in members for item in group.items), path, extended=True)
        written.append(path)
    return written
