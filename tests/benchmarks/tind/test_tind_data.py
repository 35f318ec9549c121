"""TIND loaders: raw release (read in place from the encrypted zip), HF layout, splits.

Sentences in the hand-written fixtures below are invented; nothing from the release is copied here.
"""

from __future__ import annotations

import json
import sys
import types
import zipfile
from collections import Counter

import pytest
from tind_support import PUBLIC_COUNTS, public_groups, public_zip

from negkit.benchmarks.tind.data import (
    AUTHORS_SPLIT_COUNTS,
    PATTERN_NAMES,
    SplitCounts,
    TindGroup,
    TindSource,
    expected_label,
    format_example_counts,
    parse_example_counts,
    parse_pattern_text,
    read_example_counts,
    read_tind,
    read_tind_hf,
    read_tind_predictions,
    read_tind_raw,
    scaled_split_counts,
    split_groups,
    split_items,
    write_tind_jsonl,
    write_tind_parquet,
    write_tind_raw,
)
from negkit.errors import DataNotFoundError, InputFormatError, NegkitError

# An invented two-distractor group (pattern #03 layout) with the header forms of the release: a lemma with a
# space, a word distractor, and a synset distractor whose lemma has parentheses.
INVENTED_PATTERN_03 = (
    "% Test 000007\tSource: synset(00000001-n glass jar_1,00000001-n jar_2)"
    "\tDistractor-1: kite [00000002-n,00000003-n]\tDistractor-2: 00000004-n [((lid),3),(cap,1)]\n"
    "\n"
    "1-1\taffirmation\tnone\tnone\tInput     \tT\tGlass jar and jar are synonyms.\n"
    "1-1\taffirmation\tnone\tnone\tDistractor-1\tF\tKite and jar are synonyms.\n"
    "2-1\tverbal\tanalytic\tclausal\tInput     \tF\tGlass jar and jar are not synonyms.\n"
    "2-1\tverbal\tanalytic\tclausal\tDistractor-2\tT\tGlass jar and lid are not synonyms.\n"
    "\n"
)


# ---------------------------------------------------------------------------------------------- raw release


def test_public_zip_counts():
    groups = public_groups()
    assert len(groups) == 2052
    assert sum(len(group.items) for group in groups) == 190765
    per_pattern = Counter()
    for group in groups:
        per_pattern[group.pattern_id] += 1
    sentences = Counter()
    for group in groups:
        sentences[group.pattern_id] += len(group.items)
    assert {p: (per_pattern[p], sentences[p]) for p in PUBLIC_COUNTS} == PUBLIC_COUNTS


def test_public_zip_items_are_consistent():
    groups = public_groups()
    seen_keys = set()
    deviating_patterns = set()
    for group in groups:
        assert group.key not in seen_keys
        seen_keys.add(group.key)
        assert group.pattern == PATTERN_NAMES[group.pattern_id]
        assert group.header_line() == group.header  # parsed header rebuilds the raw line exactly
        assert len(group.distractors) == (2 if group.pattern_id in (2, 3, 4) else 1)
        for index, item in enumerate(group.items):
            assert item.item_id == f"p{group.pattern_id:02d}-g{group.group_id:06d}-s{index:04d}"
            assert item.group_key == group.key
            assert item.is_distractor == (item.kind != "Input")
            if item.label != expected_label(item.pattern_id, item.is_distractor, item.is_negated):
                deviating_patterns.add(item.pattern_id)
    # The truth table of the paper holds everywhere except the "dual" synonymy/antonymy templates of #03/#04.
    assert deviating_patterns == {3, 4}
    # Odd test numbers only: the public half holds the even 0-based positions of each file.
    assert all(group.group_id % 2 == 1 for group in groups)


def test_raw_round_trip_is_byte_identical(tmp_path):
    groups = public_groups()
    written = write_tind_raw(groups, tmp_path)
    assert len(written) == 11
    with zipfile.ZipFile(public_zip()) as archive:
        for path in written:
            original = archive.read(f"raw-public/{path.name}", pwd=b"hitz")
            assert path.read_bytes() == original, path.name


def test_header_rebuilt_from_fields_is_byte_identical(tmp_path):
    groups = parse_pattern_text(INVENTED_PATTERN_03, 3)
    rebuilt = [TindGroup(g.group_id, g.pattern_id, g.pattern, g.source, g.distractors, g.items) for g in groups]
    write_tind_raw(rebuilt, tmp_path)
    assert (tmp_path / "#03.Pattern.txt").read_text(encoding="utf-8") == INVENTED_PATTERN_03


def test_parse_invented_group():
    (group,) = parse_pattern_text(INVENTED_PATTERN_03, 3, "invented.txt")
    assert group.group_id == 7 and group.pattern == "Synonymy2"
    assert group.source.relation == "synset"
    first, second = group.source.synsets
    assert (first.offset, first.pos, first.lemma_sense, first.lemma, first.sense) == (
        1,
        "n",
        "glass jar_1",
        "glass jar",
        1,
    )
    assert str(second) == "00000001-n jar_2"
    word, synset = group.distractors
    assert (word.label, word.word, [str(s) for s in word.synsets]) == (
        "Distractor-1",
        "kite",
        ["00000002-n", "00000003-n"],
    )
    assert synset.is_synset_form and synset.lemmas == (("(lid)", 3), ("cap", 1))
    assert [item.kind for item in group.items] == ["Input", "Distractor-1", "Input", "Distractor-2"]
    assert [item.label for item in group.items] == [True, False, False, True]
    assert group.items[2].template_id == "2-1" and group.items[2].negation_type == "verbal"


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ("1-1\taffirmation\tnone\tnone\tInput     \tT", "expected 7 TAB-separated fields, found 6"),
        ("1-1\taffirmation\tnone\tnone\tInput     \tyes\tA jar.", "label must be T or F"),
        ("1-1\taffirmation\tnone\tnone\tDecoy\tT\tA jar.", "unknown kind 'Decoy'"),
    ],
)
def test_bad_sentence_line_names_file_and_line(line, problem):
    text = INVENTED_PATTERN_03.replace(
        "2-1\tverbal\tanalytic\tclausal\tInput     \tF\tGlass jar and jar are not synonyms.", line
    )
    with pytest.raises(InputFormatError) as error:
        parse_pattern_text(text, 3, "bad.txt")
    assert str(error.value).startswith("bad.txt:5: ")
    assert problem in str(error.value)


def test_bad_header_and_orphan_line():
    with pytest.raises(InputFormatError, match=r"bad.txt:1: bad group header"):
        parse_pattern_text("% Test 000001\tSource: synset(jar)\tDistractor: kite [00000002-n]\n", 3, "bad.txt")
    with pytest.raises(InputFormatError, match=r"bad.txt:1: sentence line before"):
        parse_pattern_text("1-1\taffirmation\tnone\tnone\tInput     \tT\tA jar.\n", 3, "bad.txt")


def test_single_pattern_file_and_folder(tmp_path):
    (tmp_path / "nested").mkdir()
    (tmp_path / "nested" / "#03.Pattern.txt").write_text(INVENTED_PATTERN_03, encoding="utf-8")
    from_folder = read_tind_raw(tmp_path)
    from_file = read_tind_raw(tmp_path / "nested" / "#03.Pattern.txt")
    assert [g.items for g in from_folder] == [g.items for g in from_file]
    assert len(read_tind(tmp_path)) == 4


def test_wrong_password_is_a_clear_error():
    with pytest.raises(NegkitError, match="cannot decrypt"):
        read_tind_raw(public_zip(), password="not-the-password")


def test_missing_source_is_data_not_found(tmp_path):
    with pytest.raises(DataNotFoundError):
        read_tind_raw(tmp_path / "absent.zip")
    with pytest.raises(InputFormatError, match="no #NN.Pattern.txt"):
        read_tind_raw(tmp_path)


# ---------------------------------------------------------------------------------------------- example counts


def test_example_counts_in_the_zip_equal_the_built_in_counts():
    counts = read_example_counts(public_zip())
    assert counts == AUTHORS_SPLIT_COUNTS
    assert sum(c.total for c in counts.values()) == 4100
    with zipfile.ZipFile(public_zip()) as archive:
        assert format_example_counts(counts) == archive.read("raw-public/example_count.txt", pwd=b"hitz").decode()


def test_parse_example_counts_checks_sums():
    assert parse_example_counts("03 - 14 | 6 2 6\n") == {3: SplitCounts(14, 6, 2, 6)}
    with pytest.raises(InputFormatError, match="counts.txt:2: train \\+ dev \\+ test = 13, not 14"):
        parse_example_counts("01 - 4 | 2 1 1\n03 - 14 | 6 1 6\n", "counts.txt")


# ---------------------------------------------------------------------------------------------- splits


def test_scaled_split_counts_by_hand():
    # 1498 of 2996 groups: exactly half of 2396 / 100 / 500.
    assert scaled_split_counts(1498, SplitCounts(2996, 2396, 100, 500)) == (1498, 1198, 50, 250)
    # 29 of 58 (25/8/25): quotas 12.5, 4, 12.5 -> floors 12, 4, 12; the one left goes to the tie's first (train).
    assert scaled_split_counts(29, SplitCounts(58, 25, 8, 25)) == (29, 13, 4, 12)
    # 6 of 11 (5/1/5): quotas 2.73, 0.55, 2.73 -> floors 2, 0, 2; two left go to train and test.
    assert scaled_split_counts(6, SplitCounts(11, 5, 1, 5)) == (6, 3, 0, 3)
    # The full size reproduces the reference counts.
    assert scaled_split_counts(634, AUTHORS_SPLIT_COUNTS[5]) == AUTHORS_SPLIT_COUNTS[5]


def test_split_of_the_public_half():
    groups = public_groups()
    first = split_groups(groups, seed=0)
    again = split_groups(groups, seed=0)
    assert {k: [g.key for g in v] for k, v in first.items()} == {k: [g.key for g in v] for k, v in again.items()}
    for pattern_id, (total, _) in PUBLIC_COUNTS.items():
        sizes = tuple(sum(g.pattern_id == pattern_id for g in first[s]) for s in ("train", "validation", "test"))
        assert sizes == scaled_split_counts(total, AUTHORS_SPLIT_COUNTS[pattern_id])[1:]
    keys = [g.key for split in first.values() for g in split]
    assert len(keys) == len(set(keys)) == 2052  # every group in exactly one split
    other = split_groups(groups, seed=1)
    assert [g.key for g in other["test"]] != [g.key for g in first["test"]]
    assert {k: len(v) for k, v in other.items()} == {k: len(v) for k, v in first.items()}
    # split_items gives the same membership at item level
    test_items = split_items([item for g in groups for item in g.items], seed=0)["test"]
    assert {item.group_key for item in test_items} == {g.key for g in first["test"]}


def test_split_of_a_full_size_set_reproduces_the_authors_counts():
    fake = [
        TindGroup(group_id=n, pattern_id=p, pattern=PATTERN_NAMES[p], source=None, distractors=())  # type: ignore[arg-type]
        for p, counts in AUTHORS_SPLIT_COUNTS.items()
        for n in range(counts.total)
    ]
    splits = split_groups(fake, seed=3)
    for p, counts in AUTHORS_SPLIT_COUNTS.items():
        assert [sum(g.pattern_id == p for g in splits[s]) for s in ("train", "validation", "test")] == list(counts[1:])


# ---------------------------------------------------------------------------------------------- HF layout

HF_LINES = [
    {
        "pattern_id": 5,
        "pattern": "Hypernymy",
        "test_id": 41,
        "negation_type": "affirmation",
        "semantic_type": "none",
        "syntactic_scope": "none",
        "isDistractor": False,
        "label": True,
        "sentence": "A kite is a toy.",
    },
    {
        "pattern_id": 5,
        "pattern": "Hypernymy",
        "test_id": 41,
        "negation_type": "verbal",
        "semantic_type": "analytic",
        "syntactic_scope": "clausal",
        "isDistractor": True,
        "label": True,
        "sentence": "A spoon is not a toy.",
    },
    {
        "pattern_id": 2,
        "pattern": "Antonymy1",
        "test_id": 42,
        "negation_type": "non_verbal",
        "semantic_type": "synthetic",
        "syntactic_scope": "subclausal",
        "isDistractor": "False",
        "label": 1,
        "sentence": "An up is never a down.",
    },
]


def _write_lines(path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_read_hf_jsonl_by_hand(tmp_path):
    items = read_tind_hf(_write_lines(tmp_path / "test.jsonl", HF_LINES))
    assert [item.item_id for item in items] == ["p05-g000041-s0000", "p05-g000041-s0001", "p02-g000042-s0000"]
    assert [item.kind for item in items] == ["Input", "Distractor", "Input"]
    assert [item.label for item in items] == [True, True, True]
    assert items[2].is_distractor is False and items[2].template_id == ""
    # a folder of split files, with "dev" standing for validation
    _write_lines(tmp_path / "dev.jsonl", HF_LINES[:1])
    assert len(read_tind_hf(tmp_path, split="validation")) == 1
    assert len(read_tind_hf(tmp_path)) == 4  # validation then test
    with pytest.raises(DataNotFoundError, match="no train split files"):
        read_tind_hf(tmp_path, split="train")


def test_jsonl_and_parquet_round_trip(tmp_path):
    items = parse_pattern_text(INVENTED_PATTERN_03, 3)[0].items
    write_tind_jsonl(items, tmp_path / "extended.jsonl", extended=True)
    assert read_tind_hf(tmp_path / "extended.jsonl") == items
    write_tind_parquet(items, tmp_path / "items.parquet", extended=True)
    assert read_tind_hf(tmp_path / "items.parquet") == items
    write_tind_jsonl(items, tmp_path / "plain.jsonl")
    first = json.loads((tmp_path / "plain.jsonl").read_text(encoding="utf-8").splitlines()[0])
    assert list(first) == [
        "pattern_id",
        "pattern",
        "test_id",
        "negation_type",
        "semantic_type",
        "syntactic_scope",
        "isDistractor",
        "label",
        "sentence",
    ]
    plain = read_tind_hf(tmp_path / "plain.jsonl")
    assert [(i.sentence, i.label, i.is_distractor) for i in plain] == [
        (i.sentence, i.label, i.is_distractor) for i in items
    ]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"label": "maybe"}, "bad.jsonl:2: field 'label': expected a boolean, found 'maybe'"),
        ({"test_id": "41"}, "bad.jsonl:2: field 'test_id': expected int, found str '41'"),
        ({"pattern": "Part"}, "bad.jsonl:2: field 'pattern': 'Part' is not pattern 5 (Hypernymy)"),
        ({"sentence": None}, "bad.jsonl:2: field 'sentence': expected str, found NoneType None"),
    ],
)
def test_bad_hf_records_name_file_line_and_field(tmp_path, change, message):
    records = [HF_LINES[0], {**HF_LINES[1], **change}]
    with pytest.raises(InputFormatError) as error:
        read_tind_hf(_write_lines(tmp_path / "bad.jsonl", records))
    assert str(error.value) == str(tmp_path / message)


def test_missing_field_and_bad_json(tmp_path):
    record = dict(HF_LINES[0])
    del record["isDistractor"]
    with pytest.raises(InputFormatError, match=r"x.jsonl:1: missing field 'isDistractor'"):
        read_tind_hf(_write_lines(tmp_path / "x.jsonl", [record]))
    (tmp_path / "y.jsonl").write_text(json.dumps(HF_LINES[0]) + "\n{oops\n", encoding="utf-8")
    with pytest.raises(InputFormatError, match=r"y.jsonl:2: not valid JSON"):
        read_tind_hf(tmp_path / "y.jsonl")


def test_predictions_file(tmp_path):
    records = [{**record, "prediction": value} for record, value in zip(HF_LINES, [True, "false", 0])]
    items, predictions = read_tind_predictions(_write_lines(tmp_path / "p.jsonl", records))
    assert len(items) == 3 and predictions == [True, False, False]
    with pytest.raises(InputFormatError, match=r"q.jsonl:1: missing field 'prediction'"):
        read_tind_predictions(_write_lines(tmp_path / "q.jsonl", HF_LINES))


def test_hub_name_offline_is_a_clear_error(monkeypatch):
    def unreachable(*_args, **_kwargs):
        raise ConnectionError("no network")

    monkeypatch.setitem(sys.modules, "datasets", types.SimpleNamespace(load_dataset=unreachable))
    monkeypatch.setattr("negkit.benchmarks.tind.hf.hub_offline", lambda: False)  # the probe passes, the load fails
    with pytest.raises(DataNotFoundError, match="Offline\\? Pass a local"):
        read_tind_hf("HiTZ/This-is-not-a-dataset", split="test")
    monkeypatch.setattr("negkit.benchmarks.tind.hf.hub_offline", lambda: True)  # known offline: fails before loading
    with pytest.raises(DataNotFoundError, match="the Hugging Face hub cannot be used"):
        read_tind_hf("HiTZ/This-is-not-a-dataset", split="test")


def test_hub_rows_are_read(monkeypatch):
    monkeypatch.setitem(sys.modules, "datasets", types.SimpleNamespace(load_dataset=lambda name, split: HF_LINES))
    monkeypatch.setattr("negkit.benchmarks.tind.hf.hub_offline", lambda: False)
    assert len(read_tind_hf("HiTZ/This-is-not-a-dataset", split="dev")) == 3


def test_source_lists_members_of_the_zip():
    source = TindSource(public_zip())
    assert sorted(source.pattern_files()) == list(range(1, 12))
    assert source.find("example_count.txt") == "raw-public/example_count.txt"


def test_aes_and_zipcrypto_zips_of_invented_data(tmp_path):
    pyzipper = pytest.importorskip("pyzipper")
    aes = tmp_path / "aes.zip"
    with pyzipper.AESZipFile(aes, "w", compression=pyzipper.ZIP_DEFLATED, encryption=pyzipper.WZ_AES) as archive:
        archive.setpassword(b"secret")
        archive.writestr("release/en/#03.Pattern.txt", INVENTED_PATTERN_03)
        archive.writestr("release/en/example_count.txt", "03 - 14 | 6 2 6")
    (group,) = read_tind_raw(aes, password="secret")
    assert group.header == INVENTED_PATTERN_03.split("\n")[0]
    assert read_example_counts(aes, password="secret") == {3: SplitCounts(14, 6, 2, 6)}
    with pytest.raises(NegkitError, match="cannot decrypt"):
        read_tind_raw(aes, password="hitz")
    plain = tmp_path / "plain.zip"  # an unencrypted zip reads the same way
    with zipfile.ZipFile(plain, "w") as archive:
        archive.writestr("#03.Pattern.txt", INVENTED_PATTERN_03)
    assert read_tind_raw(plain)[0].items == group.items


def test_hub_parquet_shard_layout(tmp_path):
    items = parse_pattern_text(INVENTED_PATTERN_03, 3)[0].items
    (tmp_path / "data").mkdir()
    write_tind_parquet(items[:2], tmp_path / "data" / "test-00000-of-00002.parquet")
    write_tind_parquet(items[2:], tmp_path / "data" / "test-00001-of-00002.parquet")
    read_back = read_tind_hf(tmp_path, split="test")
    assert [i.sentence for i in read_back] == [i.sentence for i in items]
    assert [i.item_id for i in read_back] == [i.item_id for i in items]  # numbered across shards


def test_a_zip_read_again_gives_equal_groups_of_its_own_and_a_changed_zip_is_read_anew(tmp_path):
    """The groups of the last zip read are kept for the process (decrypting and parsing the release takes
    seconds); each read gets groups of its own, and a rewritten zip is parsed again."""
    archive_path = tmp_path / "invented.zip"
    with zipfile.ZipFile(archive_path, "w") as archive:
        archive.writestr("#03.Pattern.txt", INVENTED_PATTERN_03)
    first = read_tind_raw(archive_path)
    first[0].items.pop()
    first[0].group_id = 99
    second = read_tind_raw(archive_path)
    assert len(second[0].items) == 4 and second[0].group_id == 7
    assert second[0].items == read_tind_raw(tmp_path / "invented.zip")[0].items
    one_sentence = INVENTED_PATTERN_03.replace("Glass jar and jar are not synonyms.", "Changed.")
    with zipfile.ZipFile(archive_path, "w") as archive:
        archive.writestr("#03.Pattern.txt", one_sentence + "\n" * 3)  # another size, another time
    assert read_tind_raw(archive_path)[0].items[2].sentence == "Changed."
