"""Hand-made data folders of the suites BLiMP negation, NegNLI, NeQA and CondaQA (test split), in the released
layouts, with invented sentences (for the baseline and model tests; the real files are read from ../shared/data)."""

from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path

from negkit.benchmarks.blimp import PARADIGMS

NEGNLI_HEADER = "index\tText\tHypothesis\tgold_label\n"
#: MNLI fixture: two original pairs, three rows each (negation in the premise, the hypothesis, both).
MNLI_ROWS = [
    ("The cat is not here.", "A dog is here.", "neutral"),
    ("The cat is here.", "A dog is not here.", "contradiction"),
    ("The cat is not here.", "A dog is not here.", "entailment"),
    ("Rain did not fall.", "It was dry.", "contradiction"),
    ("Rain fell.", "It was not dry.", "entailment"),
    ("Rain did not fall.", "It was not dry.", "contradiction"),
]
RTE_ROWS = [
    ("Paris is not in France.", "Paris is French.", "not_entailment"),
    ("Paris is in France.", "Paris is not French.", "entailment"),
    ("Paris is not in France.", "Paris is not French.", "not_entailment"),
]
NEQA_GOLD = (0, 1, 1, 1)
#: CondaQA test fixture: (SampleID, PassageID, QuestionID, PassageEditID, label).
CONDAQA_ROWS = [
    (9001, 7, "q1", 0, "NO"),
    (9002, 7, "q1", 1, "YES"),
    (9003, 8, "q2", 0, "NO"),
    (9004, 8, "q2", 3, "DON'T KNOW"),
]


def write_blimp(root: Path, pairs_per_paradigm: int = 2) -> Path:
    """``ROOT/blimp-negation``: every paradigm with a few invented pairs."""
    folder = root / "blimp-negation"
    folder.mkdir(parents=True, exist_ok=True)
    for paradigm in PARADIGMS:
        lines = [
            json.dumps(
                {
                    "sentence_good": f"Nobody in {paradigm} has ever seen {k} cats.",
                    "sentence_bad": f"Somebody in {paradigm} has ever seen {k} cats.",
                    "UID": paradigm,
                    "pairID": str(k),
                }
            )
            for k in range(pairs_per_paradigm)
        ]
        (folder / f"{paradigm}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


def write_negnli(root: Path) -> Path:
    """``ROOT/negation-nli`` with MNLI.txt, SNLI.txt (the same rows) and RTE.txt."""
    folder = root / "negation-nli"
    folder.mkdir(parents=True, exist_ok=True)
    for name, rows in (("MNLI", MNLI_ROWS), ("SNLI", MNLI_ROWS), ("RTE", RTE_ROWS)):
        text = NEGNLI_HEADER + "".join(f"{index}\t{p}\t{h}\t{label}\n" for index, (p, h, label) in enumerate(rows))
        (folder / f"{name}.txt").write_text(text, encoding="utf-8")
    return folder


def write_neqa(root: Path) -> Path:
    """``ROOT/neqa/neqa.csv``: four questions whose right answers are A, B, B, B."""
    folder = root / "neqa"
    folder.mkdir(parents=True, exist_ok=True)
    rows = [",prompt,classes,answer_index"]
    for index, gold in enumerate(NEQA_GOLD):
        prompt = f"Question: What is not a colour number {index}?\nA. red\nB. stone\nAnswer:"
        rows.append(f"{index},\"{prompt}\",\"[' A', ' B']\",{gold}")
    (folder / "neqa.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    return folder


def write_condaqa_test(root: Path) -> Path:
    """``ROOT/condaqa/condaqa_test.json``: two questions, each asked of the original passage and one edit."""
    folder = root / "condaqa"
    folder.mkdir(parents=True, exist_ok=True)
    lines = [
        json.dumps(
            {
                "SampleID": sample,
                "PassageID": passage,
                "QuestionID": question,
                "PassageEditID": edit,
                "sentence1": f"Passage {passage}, edit {edit}: the bird did not sing.",
                "sentence2": "Did the bird sing?",
                "label": label,
            }
        )
        for sample, passage, question, edit, label in CONDAQA_ROWS
    ]
    (folder / "condaqa_test.json").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


def random_logprob(seed: int, context: str, continuation: str) -> float:
    """The ``random`` baseline's answer to a log-likelihood request, worked out from its definition:
    ``log(u)`` with ``u`` from the SHA-256 of ``seed``, ``"loglikelihood"``, the context and the continuation."""
    text = "\x1f".join([str(seed), "loglikelihood", context, continuation])
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return math.log((int.from_bytes(digest[:8], "big") + 0.5) / 2**64)
