"""Small TIND generations: determinism, seeds changing distractors only, distractor rules, the checker.

WordNet 3.0 (Debian's wordnet-base) and ``../shared/data/wordnet`` are read in place; the generated
sentences are written to pytest's temporary folder only.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import REPO_ROOT, shared_data_path, wordnet_database_or_skip

from negkit.benchmarks.tind.data import read_tind_hf
from negkit.benchmarks.tind.types import DistractorRef, SourceSynset, SourceTriple, SynsetId, TindGroup
from negkit.cli import main
from negkit.studies.tind.generator.check import check_groups, check_splits
from negkit.studies.tind.generator.generate import Generator, write_generation
from negkit.studies.tind.generator.report import source_overlap

#: A few triples of patterns with every distractor form: synset form (#01, #02), two word distractors (#03),
#: noun distractor of a verb-noun triple (#09), verb distractor (#10).
PATTERNS = (1, 2, 3, 9, 10)
LIMIT = 4


@pytest.fixture(scope="module")
def generator() -> Generator:
    # the prerequisites are the side resources in the shared data and the WordNet 3.0 database (each skips with its
    # name when absent); anything that goes wrong once both are there fails the tests
    folder = shared_data_path("wordnet")
    return Generator.load(folder, wordnet_database_or_skip())


def _files(folder: Path) -> dict[str, bytes]:
    return {str(path.relative_to(folder)): path.read_bytes() for path in sorted(folder.rglob("*")) if path.is_file()}


def test_same_seed_gives_byte_identical_output(generator: Generator, tmp_path: Path) -> None:
    for name in ("first", "second"):
        write_generation(generator.generate_groups(7, PATTERNS, LIMIT), tmp_path / name)
    first, second = _files(tmp_path / "first"), _files(tmp_path / "second")
    assert set(first) == {f"raw/#{p:02d}.Pattern.txt" for p in PATTERNS} | {
        "raw/example_count.txt",
        "jsonl/train.jsonl",
        "jsonl/validation.jsonl",
        "jsonl/test.jsonl",
    }
    assert first == second


def test_other_seed_changes_distractors_only(generator: Generator) -> None:
    one = generator.generate_groups(1, PATTERNS, LIMIT)
    two = generator.generate_groups(2, PATTERNS, LIMIT)
    assert [g.source for g in one] == [g.source for g in two]
    assert [g.distractors for g in one] != [g.distractors for g in two]
    for a, b in zip(one, two):
        inputs_a = [item for item in a.items if item.kind == "Input"]
        inputs_b = [item for item in b.items if item.kind == "Input"]
        assert inputs_a == inputs_b
        assert [(i.template_id, i.kind, i.label) for i in a.items] == [
            (i.template_id, i.kind, i.label) for i in b.items
        ]


def test_generated_groups_pass_the_checker(generator: Generator, tmp_path: Path) -> None:
    groups = generator.generate_groups(3, PATTERNS, LIMIT)
    assert [len([g for g in groups if g.pattern_id == p]) for p in PATTERNS] == [LIMIT] * len(PATTERNS)
    report = check_groups(groups, generator.rules, generator.realiser)
    write_generation(groups, tmp_path)
    check_splits(
        {name: read_tind_hf(tmp_path / "jsonl" / f"{name}.jsonl") for name in ("train", "validation", "test")}, report
    )
    assert report.ok, report.examples
    assert report.patterns[3].documented_deviations > 0  # #03's "dual application" templates


def test_checker_catches_a_bad_distractor_and_a_wrong_label(generator: Generator) -> None:
    group = generator.generate_groups(0, (10,), 1)[0]
    verb = group.source.synsets[0]
    same_word = DistractorRef("Distractor", (SynsetId(verb.offset, verb.pos),), verb.lemma)
    broken = TindGroup(group.group_id, 10, group.pattern, group.source, (same_word,), list(group.items))
    first = broken.items[0]
    broken.items[0] = type(first)(**{**{f: getattr(first, f) for f in first.__slots__}, "label": not first.label})
    report = check_groups([broken], generator.rules, generator.realiser)
    kinds = set(report.patterns[10].problems)
    assert "label" in kinds
    assert "shares lexicographer file + domain with the replaced synset" in kinds
    assert "the distractor word is a word of the triple" in kinds
    assert "realisation" in kinds


def test_source_overlap_counts_reference_groups_found() -> None:
    def group(pattern_id: int, lemma: str) -> TindGroup:
        source = SourceTriple("variant", (SourceSynset(1, "n", f"{lemma}_1"),))
        return TindGroup(1, pattern_id, "Synonymy1", source, ())

    assert source_overlap([group(1, "a"), group(1, "b")], [group(1, "a"), group(1, "c"), group(2, "a")]) == {
        1: (1, 2),
        2: (0, 1),
    }


def test_generate_refuses_to_write_inside_the_repository(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tind", "generate", "--out", str(REPO_ROOT / "generated-tind")]) == 2
    assert "git working tree" in capsys.readouterr().err
    assert not (REPO_ROOT / "generated-tind").exists()


def test_a_missing_wordnet_names_the_exact_install_command(tmp_path):
    from negkit.errors import DataNotFoundError
    from negkit.studies.tind.generator.wordnet import WordNet

    with pytest.raises(DataNotFoundError, match=r"install it with: sudo apt-get install wordnet-base \(Debian"):
        WordNet(tmp_path)
