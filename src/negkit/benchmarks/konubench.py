"""KoNUBench (github Sungmok-Jung/KoNUBench, no paper yet): Korean sentence negation as multiple choice, the design
of Thunder-NUBench: for an original sentence, pick its standard (clausal) negation among the standard negation, a
local negation (only a subordinate part negated), a contradiction without negation and a paraphrase. Plus the
repository's two negated Korean QA sets.

``konubench`` (the main task) runs the kit's standard-negation multiple choice
(declared as a :class:`negkit.kit.tasks.negation_choice.NegationChoice`: the code path of Thunder-NUBench) on
``dataset/ko_nubench/{test/test.json, validation/val.json, train/train.json}``: JSON arrays whose records name the
roles (``standard_negation`` = choice1, ``local_negation`` = choice2, ``contradiction`` = choice3, ``paraphrase`` =
choice4; a null local negation makes a three-candidate item, Thunder's ``non-applicable``); the local-negation types
(``local_negation_type``) are Korean: :data:`LOCAL_TYPES`. Asked as the authors' ``ko_nubench_cloze`` task: the
Harness ``description`` (the Korean definition of standard negation and of the Korean negation forms,
:data:`DESCRIPTION`) then ``원문: SENTENCE\\n부정문:``, each candidate after one space; ``acc`` and ``acc_norm``, the
error analysis with a confusion rate per Korean type; few-shot from the validation split (``--num-fewshot``,
over seeds, as Thunder-NUBench). ``--prompt plain`` drops the description.

``konubench-kmmlu``: the 7,154 row-aligned two-option questions of ``kmmlu_pos`` ("which is correct?") and
``kmmlu_neg`` ("which is NOT correct?", the answer flipped), each pair a :mod:`negkit.kit.tasks.paired` item asked
with the Harness prompt ``{question}\\nA. {A}\\nB. {B}\\n정답：`` and the letters as continuations: accuracy on both
halves and ``both_correct``. ``konubench-boolq-neg``: 1,404 KoBEST BoolQ items with a negated question, ``{paragraph}
질문: {question} 답변: `` with ``아니오`` / ``예`` (no / yes).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal, get_args

from pydantic import AfterValidator, ConfigDict, Field, model_validator

from negkit.errors import DataNotFoundError, InputFormatError, quoted
from negkit.kit.data.rows import DataRow, Text, read_rows
from negkit.kit.render.negation_choice import choice_figures
from negkit.kit.suites import DataSource, register_suite
from negkit.kit.suites.description import TaskEntry
from negkit.kit.suites.kinds import choice_harness, declared_suite, paired_harness
from negkit.kit.tasks.choice import ChoiceQuestion, MultipleChoice
from negkit.kit.tasks.negation_choice import NON_APPLICABLE, ChoiceItem, NegationChoice
from negkit.kit.tasks.paired import PairedItem, PairedQuestions, PartQuestion
from negkit.kit.training_data.declaration import register_training
from negkit.kit.training_data.task_source import task_training_source

NAME = "konubench"
SPLIT_FILES = {"test": "test/test.json", "validation": "validation/val.json", "train": "train/train.json"}
LocalType = Literal["관형절", "대등절 일부", "부사절", "종속절", "명사절", "인용절"]
LOCAL_TYPES: tuple[str, ...] = get_args(LocalType)
ROLES = ("standard_negation", "local_negation", "contradiction", "paraphrase")
DESCRIPTION = (
    "문제: 다음의 원문을 standard negation을 활용하여 올바르게 부정하시오.\n\nstandard negation:\n"
    "- 주절의 서술어를 한국어의 부정 표현을 활용해 부정함으로써 원문 P를  ¬P로 만든다.\n"
    "- 주절의 서술어 외의 나머지 부분은 수정하지 않는다.\n"
    "- 원문이 조건문일 때는 논리적 규칙(¬(P → Q) ≡ P ∧ ¬Q)을 따라 부정한다.\n"
    "- 주절이 여러 개일 경우 드모르간의 법칙(예. ¬(P ∧ Q) ≡ ¬P ∨ ¬Q)에 따라 모든 주절의 서술어를 부정한다.\n\n"
    "한국어의 부정 표현:\n- 안 계열: 안, -지 않다\n- 못 계열: 못, -지 못하다\n"
    "- 어휘적 부정: 상보 반의어를 활용한 부정(이다/아니다, 있다/없다, 참석하다/불참하다 등)\n\n"
)
PROMPTS = {"cloze": "원문: {s}\n부정문:", "plain": "원문: {s}\n부정문:"}


def _idx(idx: str) -> str:
    if not idx.lstrip("G").isdigit():
        raise ValueError(f"expected a number (or G and a number), found {quoted(idx)}")
    return idx


class Record(DataRow):
    """A record of a KoNUBench JSON file (texts stripped)."""

    model_config = ConfigDict(str_strip_whitespace=True)


class Item(Record):
    """A record of a KoNUBench split: the sentence, its four rewritings and the kind of local negation."""

    idx: Annotated[str, AfterValidator(_idx)]
    raw_id: Any = None
    original_sentence: Text
    standard_negation: Text
    local_negation: Text | None = None
    local_negation_type: LocalType | None = None
    local_element: Any = Field(None, alias="local_부정요소")
    contradiction: Text
    paraphrase: Text

    @model_validator(mode="after")
    def _local_given_with_its_type(self) -> Item:
        if (self.local_negation is None) != (self.local_negation_type is None):
            raise ValueError("'local_negation' and 'local_negation_type' must both be given or both be null")
        return self


def split_file(folder: str | Path, split: str) -> Path:
    """The file of ``split`` in a KoNUBench folder: ``FOLDER/dataset/ko_nubench/SPLIT_FILES[split]``."""
    if split not in SPLIT_FILES:
        raise DataNotFoundError(f"KoNUBench has no split {split!r} (choose one of {', '.join(SPLIT_FILES)})")
    return Path(folder) / "dataset" / "ko_nubench" / SPLIT_FILES[split]


def read_konubench(path: str | Path | None, split: str = "test") -> list[ChoiceItem]:
    """The items of one KoNUBench split file (a folder means ``FOLDER/dataset/ko_nubench/SPLIT``); a bad record names
    the file and the line where it starts."""
    if path is None:
        raise DataNotFoundError("KoNUBench is read from a local folder only")
    path = Path(path)
    if path.is_dir():
        path = split_file(path, split)
    items, seen = [], set()
    for line, row in read_rows(path, Item):
        choices = (row.standard_negation, row.local_negation or "", row.contradiction, row.paraphrase)
        raw = row.raw_id
        item = ChoiceItem(
            f"{NAME}-{split}-{row.idx}",
            int(row.idx.lstrip("G")),
            int(raw) if isinstance(raw, (int, float)) and not isinstance(raw, bool) else None,
            row.original_sentence,
            choices,
            row.local_negation_type or NON_APPLICABLE,
            str(row.local_element or ""),
        )
        if item.item_id in seen:
            raise InputFormatError(path, line, f"idx {row.idx} appears twice")
        seen.add(item.item_id)
        items.append(item)
    return items


KONUBENCH = NegationChoice(
    NAME,
    read_konubench,
    lambda folder, split: [split_file(folder, split)],
    title="KoNUBench multiple choice",
    unit="KoNUBench item",
    prompts=PROMPTS,
    default_prompt="cloze",
    descriptions={"cloze": DESCRIPTION},
    local_types=LOCAL_TYPES,
)


class KMMLUQuestion(Record):
    """A question of ``kmmlu_pos.json`` or ``kmmlu_neg.json``: two options, A or B (0 or 1) right."""

    question: Text
    A: Text
    B: Text
    answer: Literal[0, 1]
    Category: Any = ""

    def part(self) -> PartQuestion:
        return PartQuestion(f"{self.question}\nA. {self.A}\nB. {self.B}\n정답：", (" A", " B"), self.answer)


def read_kmmlu(folder: str | Path, split: str = "test") -> list[PairedItem]:
    """The row-aligned pairs of ``kmmlu_pos`` and ``kmmlu_neg`` (same options, the answer flipped: checked)."""
    base = Path(folder) / "dataset"
    positive_path, negative_path = base / "kmmlu_pos/test/kmmlu_pos.json", base / "kmmlu_neg/test/kmmlu_neg.json"
    positive, negative = list(read_rows(positive_path, KMMLUQuestion)), list(read_rows(negative_path, KMMLUQuestion))
    if len(positive) != len(negative):
        raise InputFormatError(
            negative_path, None, f"{len(negative)} questions for the {len(positive)} of kmmlu_pos.json"
        )
    items = []
    for number, ((_, first), (line, second)) in enumerate(zip(positive, negative)):
        if first.answer == second.answer:
            raise InputFormatError(negative_path, line, "the negated question must have the other answer")
        items.append(
            PairedItem(f"kmmlu-{number}", str(first.Category), {"positive": first.part(), "negated": second.part()})
        )
    return items


class BoolQuestion(Record):
    """A question of ``kobest_boolq_neg.json``: a paragraph, a (negated) question and the answer (1: yes)."""

    paragraph: Text
    question: Text
    label: Literal[0, 1]


def read_boolq_neg(folder: str | Path, split: str = "test") -> list[ChoiceQuestion]:
    """KoBEST BoolQ with negated questions: ``paragraph``, ``question``, ``label`` (1: yes)."""
    path = Path(folder) / "dataset/kobest_boolq_neg/test/kobest_boolq_neg.json"
    return [
        ChoiceQuestion(
            f"boolq-neg-{number}", f"{row.paragraph} 질문: {row.question} 답변:", ("아니오", "예"), row.label
        )
        for number, (_, row) in enumerate(read_rows(path, BoolQuestion))
    ]


KMMLU = PairedQuestions(
    f"{NAME}-kmmlu",
    read_kmmlu,
    lambda folder, split: [
        Path(folder) / "dataset/kmmlu_pos/test/kmmlu_pos.json",
        Path(folder) / "dataset/kmmlu_neg/test/kmmlu_neg.json",
    ],
    parts=("positive", "negated"),
    twins=("positive", "negated"),
    title="KMMLU, positive and negated questions",
    dataset=NAME,
    style="continuation",
    group_field="category",
    groups_key="categories",
    unit="question pair",
    headline=("negated.accuracy", "positive.accuracy", "both_correct"),
    protocol="the Harness prompt {question}\\nA. {A}\\nB. {B}\\n정답： and the letters as continuations",
)
BOOLQ_NEG = MultipleChoice(
    f"{NAME}-boolq-neg",
    read_boolq_neg,
    lambda folder, split: [Path(folder) / "dataset/kobest_boolq_neg/test/kobest_boolq_neg.json"],
    title="KoBEST BoolQ, negated questions",
    dataset=NAME,
    acc_norm=True,
    unit="question",
    protocol={"prompt": "{paragraph} 질문: {question} 답변:", "choices": "아니오 / 예"},
)

#: ``negkit finetune --train konubench=N``: the train split (2,500 items; no idx or sentence shared with validation or
#: test) asked as the evaluation asks it (the description, ``원문: SENTENCE\n부정문:``), the standard negation after one
#: space as the completion, every candidate kept as the example's choices.
TRAINING = task_training_source(
    NAME,
    "KoNUBench's train split (2,500 Korean sentences) in its evaluation prompt, the standard negation as the answer",
    KONUBENCH.task,
    split="train",
    in_distribution=NAME,
)


SUITE = register_suite(
    declared_suite(
        KONUBENCH,
        DataSource.declared(__file__),
        "KoNUBench: Korean standard negation as multiple choice (Thunder-NUBench's design and code path)",
        "KoNUBench",
        more=(
            TaskEntry(KMMLU.name, KMMLU.task, "KMMLU questions asked positively and negated: accuracy on both"),
            TaskEntry(BOOLQ_NEG.name, BOOLQ_NEG.task, "KoBEST BoolQ with negated questions: accuracy"),
        ),
        aliases=("ko-nubench",),
        scorer_help="KoNUBench: acc, acc_norm, error analysis from {item_id, prediction[, prediction_norm, run]} lines",
        interval_unit="item",
        figures=choice_figures("KoNUBench"),
        task_harness={KMMLU.name: paired_harness(KMMLU), BOOLQ_NEG.name: choice_harness(BOOLQ_NEG)},
        order=170,
        groups=("negation-all",),
    )
)
register_training(SUITE, sources=(TRAINING,))
