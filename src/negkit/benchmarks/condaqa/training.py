"""CondaQA's training source for a training mix (``--train condaqa=N``): the dev split, asked with the evaluation's
prompt, the written answer as the completion (then the newline that ends generation, so the model learns to stop).

Only for a model that will be scored on the test split: the dev passages whose original text is also in the test
split (3 here) are dropped. Exact balance needs closed answers, so only the yes/no questions are kept (the dev
split has 48 "don't know" answers and a few spans: too few to balance); the choices the guards compare are all three
closed answers. The original passage and its edits share a pair key (minimal pairs: one question, one changed
negation, often another answer).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from negkit.benchmarks.condaqa.data import SPLIT_FILES, QAItem, read_condaqa
from negkit.benchmarks.condaqa.metrics import canonical_answer
from negkit.benchmarks.condaqa.task import CHOICES, CondaQATask
from negkit.kit.data.locate import locate_dataset
from negkit.kit.training_data.task_source import task_training_source

#: The completions of the closed answers (the newline ends generation, as the evaluation's stop sequence).
ANSWERS: dict[str, str] = {normalised: f" {written}\n" for written, normalised in CHOICES.items()}
TRAINED = ("yes", "no")


class CondaQATraining(CondaQATask):
    """The generation task, with the completion to train for each dev question (None: not trained)."""

    def training_completion(self, item: QAItem) -> tuple[str, tuple[str, ...]] | None:
        answer = canonical_answer(item.answer)
        if answer not in TRAINED:
            return None
        return ANSWERS[answer], tuple(ANSWERS.values())


def dev_items_not_in_test() -> tuple[list[QAItem], list[Path]]:
    """The dev questions, without the passages whose original text the test split also holds."""
    folder = locate_dataset("condaqa")
    test_originals = {item.passage for item in read_condaqa(folder, "test") if item.edit == 0}
    dev = read_condaqa(folder, "dev")
    shared = {item.passage_id for item in dev if item.edit == 0 and item.passage in test_originals}
    files = [folder / SPLIT_FILES["dev"], folder / SPLIT_FILES["test"]]
    return [item for item in dev if item.passage_id not in shared], files


def _pair(item: Any) -> str:
    return f"{item.passage_id}:{item.question_id}"


def _negated(item: Any) -> bool:
    return item.edit != 3  # every edit but the affirmative one keeps a negation


TRAINING = task_training_source(
    "condaqa",
    "CondaQA dev (yes/no questions; passages shared with test dropped) in the evaluation's prompt",
    CondaQATraining,
    read=dev_items_not_in_test,
    pair=_pair,
    negated=_negated,
    content_free_item=QAItem("content-free", 0, 0, "", 0, "N/A", "N/A", "yes"),
    in_distribution="condaqa",
)
