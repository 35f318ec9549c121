"""The TIND generator's WordNet side resources are declared (``negkit data get wordnet``), and the one built file,
``morphosemantic-links.tsv``, comes out of yawni's conversion with the declared bytes. yawni's file is made here from
../shared/data's TSV the way it differs (no header row, a trailing tab on each line)."""

from __future__ import annotations

from negkit.benchmarks.tind.wordnet_sources import WORDNET_RESOURCES, YAWNI_TSV, build_morphosemantic_tsv
from negkit.kit.data.declared import check_file
from negkit.kit.suites import get_suite


def test_the_morphosemantic_tsv_is_built_with_the_declared_bytes(shared_data, tmp_path):
    ours = (shared_data / "wordnet" / "morphosemantic-links.tsv").read_bytes()
    yawni = b"".join(line + b"\t\n" for line in ours.split(b"\n")[1:] if line)
    (tmp_path / "inputs" / YAWNI_TSV.path).parent.mkdir(parents=True)
    (tmp_path / "inputs" / YAWNI_TSV.path).write_bytes(yawni)
    built = build_morphosemantic_tsv(tmp_path / "inputs", tmp_path / "root")
    declared = next(f for f in WORDNET_RESOURCES.files if f.path == "wordnet/morphosemantic-links.tsv")
    assert declared.url is None and check_file(built, declared) is None


def test_tind_lists_the_wordnet_resources():
    assert get_suite("tind").extra_data["wordnet"] is WORDNET_RESOURCES
    assert len(WORDNET_RESOURCES.files) == 22
