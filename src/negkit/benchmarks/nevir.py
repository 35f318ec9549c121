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
from dataclasses import replace
from pathlib import Path
from typing import Any

from negkit.errors import InputFormatError, quoted
from negkit.io.atomic import atomic_write_text
from negkit.io.textfiles import read_text
from negkit.kit.data.declared import declared_files
from negkit.kit.data.rows import DataRow, Text, read_rows
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


class Pair(DataRow):
    """A line of ``NevIR_test.jsonl``: two queries and their documents, which differ by a negation."""

    id: Text
    WorkerId: Any = None
    q1: Text
    doc1: Text
    q2: Text
    doc2: Text


def read_nevir(folder: str | Path, split: str = "test") -> list[RankingPair]:
    """The pairs of ``FOLDER/NevIR_test.jsonl``, in file order; a bad line names the file and line."""
    path = Path(folder) / FILE
    pairs = []
    for line, row in read_rows(path, Pair):
        if row.doc1 == row.doc2:
            raise InputFormatError(path, line, "doc1 and doc2 are the same text: the pair cannot be ranked")
        fields = {"passage": row.id.rpartition("-")[0] or row.id, "worker": row.WorkerId}
        pairs.append(RankingPair(f"{NAME}-{row.id}", (row.q1, row.q2), (row.doc1, row.doc2), None, fields))
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
        data=replace(
            DataSource.declared(__file__),
            inputs=declared_files(Path(__file__).with_name("nevir_inputs.json")),
            build=build_test_file,
        ),
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
