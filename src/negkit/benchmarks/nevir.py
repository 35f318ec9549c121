"""NevIR (Weller, Lawrie and Van Durme, EACL 2024): negation in neural information retrieval. Each of the 1,383
test pairs holds two documents that differ (minimally) by a negation and two crowd-written queries, ``q1``
relevant to ``doc1`` only and ``q2`` to ``doc2`` only; a system is right on a pair when each query ranks its own
document first (pairwise accuracy, the paper's and MTEB's ``paired_accuracy``; random: 25%).

Asked as contrastive ranking pairs (:mod:`negkit.kit.tasks.ranking_pairs`) of any model kind: a sentence embedding
model (``embed:PATH``, or a sentence-transformers folder's path: cosine of mean-pooled embeddings), a causal LM as
a pointwise reranker (log-probability of " Yes" to a relevance prompt, the headline; beside it the query's
log-probability given the document) or an NLI cross-encoder (``nli:PATH``: P(entailment | document, query)).
Intervals resample the pairs.

``NevIR_test.jsonl`` is JSON Lines: ``id`` (``"<CondaQA PassageID>-<edit>"``), ``WorkerId``, ``q1``, ``doc1``,
``q2``, ``doc2``. Every document is a CondaQA test passage (original or edited): a model tuned on CondaQA's test
passages has seen NevIR's documents, though not its queries (:data:`OVERLAP`).
"""

from __future__ import annotations

import json
from pathlib import Path

from negkit.errors import InputFormatError, quoted
from negkit.io.atomic import atomic_write_text
from negkit.io.textfiles import iter_json_objects, read_text
from negkit.kit.data.declared import declared_files
from negkit.kit.suites import DataSource, register_suite
from negkit.kit.suites.description import SuiteDescription, TaskEntry
from negkit.kit.tasks.ranking_pairs import RANKING_NO_HARNESS, ContrastiveRanking, RankingPair, ranking_figures

NAME, FILE = "nevir", "NevIR_test.jsonl"
#: The public file the test split is rebuilt from (``nevir_inputs.json``), and the hub's columns kept from it.
SOURCE, COLUMNS = "nevir/NevIR_test_final.json", ("id", "WorkerId", "q1", "doc1", "q2", "doc2")


def build_test_file(inputs: Path, root: Path) -> Path:
    """Write ``ROOT/nevir/NevIR_test.jsonl`` from a third-party copy of the hub's test split (a JSON array with
    LLM-added fields, in arbitrary order): the hub's columns only, sorted by id (``578-2``: passage, then edit)."""
    source = inputs / SOURCE
    try:
        rows = json.loads(read_text(source, "JSON file (NevIR's test split)"))
    except json.JSONDecodeError as error:
        raise InputFormatError(source, error.lineno, f"not valid JSON ({error.msg})") from None
    if not isinstance(rows, list) or not all(isinstance(row, dict) and set(COLUMNS) <= set(row) for row in rows):
        raise InputFormatError(source, None, f"expected a JSON array of objects with {', '.join(COLUMNS)}")
    kept = sorted(({key: row[key] for key in COLUMNS} for row in rows), key=lambda row: _id_order(source, row["id"]))
    target = root / NAME / FILE
    target.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(target, "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in kept))
    return target


def _id_order(source: Path, item_id: object) -> tuple[int, int]:
    try:
        passage, edit = str(item_id).split("-")
        return int(passage), int(edit)
    except ValueError:
        raise InputFormatError(source, None, f"id {quoted(item_id)}: expected PASSAGE-EDIT numbers") from None


OVERLAP = (
    "Overlap: every NevIR document is a CondaQA test passage (original or edited); a model tuned on CondaQA's test "
    "passages has seen these documents, though not the queries."
)
BIBTEX = r"""@inproceedings{weller2024,
  title = {{NevIR}: Negation in Neural Information Retrieval},
  author = {Weller, Orion and Lawrie, Dawn and Van Durme, Benjamin},
  booktitle = {Proceedings of the 18th Conference of the European Chapter of the Association for Computational
               Linguistics (Volume 1: Long Papers)},
  pages = {2274--2287},
  year = {2024},
  publisher = {Association for Computational Linguistics},
}"""
_FIELDS = ("id", "q1", "doc1", "q2", "doc2")


def read_nevir(folder: str | Path, split: str = "test") -> list[RankingPair]:
    """The pairs of ``FOLDER/NevIR_test.jsonl``, in file order; a bad line names the file and line."""
    path = Path(folder) / FILE
    pairs = []
    for line, record in iter_json_objects(path, required=_FIELDS):
        for name in _FIELDS:
            value = record[name]
            if not isinstance(value, str) or not value.strip():
                raise InputFormatError(
                    path, line, f"field {name!r}: expected a non-empty string, found {quoted(value)}"
                )
        if record["doc1"] == record["doc2"]:
            raise InputFormatError(path, line, "doc1 and doc2 are the same text: the pair cannot be ranked")
        passage = record["id"].rpartition("-")[0] or record["id"]
        fields = {"passage": passage, "worker": record.get("WorkerId")}
        pairs.append(
            RankingPair(
                f"{NAME}-{record['id']}", (record["q1"], record["q2"]), (record["doc1"], record["doc2"]), None, fields
            )
        )
    if not pairs:
        raise InputFormatError(path, None, "no pairs")
    return pairs


NEVIR = ContrastiveRanking(
    NAME,
    read_nevir,
    lambda folder, split: [Path(folder) / FILE],
    title="NevIR (test)",
    unit="NevIR pair",
    note=OVERLAP,
    protocol={"metric": "pairwise accuracy (each query ranks its own document first; ties wrong)"},
)

SUITE = register_suite(
    SuiteDescription(
        name=NAME,
        title="NevIR: negation in neural information retrieval",
        tasks=(
            TaskEntry(
                NAME,
                NEVIR.task,
                "NevIR: contrastive ranking pairs (documents differing by a negation; pairwise accuracy) with an "
                "embedding model, a causal LM reranker or an NLI cross-encoder. " + OVERLAP,
                classifier=True,
                embedding=True,
            ),
        ),
        main_task=NAME,
        data=DataSource(
            NAME,
            "the Hugging Face dataset orionweller/NevIR, test split, as JSON Lines (id, WorkerId, q1, doc1, q2, doc2) "
            f"into DATA/{NAME}/{FILE}",
            licence="MIT (github orionw/NevIR; the hub card and MTEB give MIT for the data); passages from CondaQA",
            citation="weller2024",
            files=declared_files(Path(__file__).with_name("nevir_files.json")),
            inputs=declared_files(Path(__file__).with_name("nevir_inputs.json")),
            build=build_test_file,
        ),
        bibtex=BIBTEX,
        reader=read_nevir,
        scorer_help="NevIR: pairwise accuracy from {item_id, scores: [[q1d1, q1d2], [q2d1, q2d2]]} lines",
        interval_unit="NevIR pair",
        primary_metric="pairwise_accuracy",
        figures=ranking_figures,
        harness_none=RANKING_NO_HARNESS,
        order=180,
        groups=("negation-all",),
    )
)
