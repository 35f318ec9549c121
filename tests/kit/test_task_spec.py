"""Every registered task's :class:`negkit.kit.tasks.spec.TaskSpec`, read without building the task, says what the
task built says: the flag-set options it takes, whether the run's seed changes what it asks, its splits (and their
aliases), the field grouping its items and the fields kept private."""

from __future__ import annotations

import pytest

from negkit.kit.suites import all_suites, get_task, get_task_spec, task_flags
from negkit.kit.tasks.base import TASK_OPTIONS
from negkit.kit.tasks.spec import task_spec

FLAG_OPTIONS = frozenset((*TASK_OPTIONS, *task_flags()))
CASES = [
    (entry.name, kind)
    for suite in all_suites()
    for entry in suite.tasks
    for kind in (
        "language_model",
        *(("classifier",) if entry.classifier else ()),
        *(("embedding",) if entry.embedding else ()),
    )
]


@pytest.mark.parametrize(("name", "kind"), CASES, ids=[f"{name}-{kind}" for name, kind in CASES])
def test_the_spec_says_what_the_built_task_says(name, kind):
    spec = get_task_spec(name, kind)
    options = {} if kind == "language_model" else {"model_kind": kind}
    built = get_task(name, **options)
    assert spec.accepts == built.accepts & FLAG_OPTIONS
    assert spec.uses_seed(options) == built.uses_seed
    splits = getattr(built, "splits", None)
    assert spec.splits == (None if splits is None else tuple(splits))
    assert spec.private_fields == tuple(getattr(built, "private_fields", ()) or ())
    normalize = getattr(built, "normalize_split", lambda split: split)
    for split in ("train", "dev", "val", "valid", "validation", "test", "all"):
        assert spec.normalize_split(split) == normalize(split)
    declaration = getattr(built, "spec", built)  # a declared task's declaration, else the task itself
    assert spec.group_field == (getattr(declaration, "group_field", "") or "")
    assert spec.groups == tuple(getattr(declaration, "groups", ()) or ())
    if "num_fewshot" in spec.accepts:  # few-shot draws take the seed; zero-shot asks the same whatever it is
        for shots in (1, 2) if name.endswith("-fewshot") else (0, 2):
            assert spec.uses_seed({**options, "num_fewshot": shots}) == get_task(name, num_fewshot=shots).uses_seed


def test_a_spec_reads_the_factorys_parameters():
    def factory(chat: bool = False, num_fewshot: int = 5, seeds: tuple[int, ...] = (1,), style: str = "x") -> None:
        return None

    spec = task_spec("t", factory, FLAG_OPTIONS)
    assert spec.accepts == {"chat", "num_fewshot"} and spec.fewshot_seeds and spec.default_fewshot == 5
    assert spec.uses_seed({}) and not spec.uses_seed({"num_fewshot": 0})
    assert task_spec("t", factory, FLAG_OPTIONS, model_kind="classifier").accepts == frozenset()
    assert task_spec("t", factory, FLAG_OPTIONS, accepts=frozenset({"chat"}), always_seeded=True).uses_seed(
        {"num_fewshot": 0}
    )


def test_the_spec_says_what_the_suite_declares_of_the_task():
    """Suite, data declaration, interval unit, BibTeX and Harness export, read without building the task."""
    from negkit.commands.export import exportable

    exports = exportable()
    for suite in all_suites():
        for entry in suite.tasks:
            spec = get_task_spec(entry.name)
            assert (spec.suite, spec.data, spec.interval_unit, spec.bibtex) == (
                suite.name,
                suite.data,
                suite.interval_unit,
                suite.bibtex,
            )
            if entry.name in exports:
                assert spec.harness_names == exports[entry.name].names and spec.harness_none == ""
            else:
                assert spec.harness_names == () and spec.harness_none == suite.harness_none
    tind = get_task_spec("tind")
    assert tind.suite == "tind" and tind.data is not None and tind.data.folder == "tind"
    assert tind.interval_unit.startswith("group") and "@" in tind.bibtex
    assert get_task_spec("scone").harness_names and get_task_spec("tind").harness_names


class _HandWrittenTask:
    """A task an included suite might write (hand-written for this test): splits, an alias and a private field."""

    model_kind = "language_model"
    splits = ("dev", "test")
    private_fields = ("secret",)

    def __init__(self, chat: bool = False) -> None:
        self.chat = chat

    @staticmethod
    def normalize_split(split: str) -> str:
        return "dev" if split == "validation" else split


def _unannotated_factory(chat=False):  # no return annotation: the spec cannot see the class it builds
    return _HandWrittenTask(chat)


def test_what_only_the_built_task_says_completes_its_spec():
    """A factory function without a return annotation hides its task's splits and private fields from the spec;
    the built task completes it (the run's split check and privacy read the completed spec), and a private field
    is never dropped."""
    from negkit.kit.tasks.adapter import adapt

    hidden = task_spec("hand-written", _unannotated_factory, ["chat"])
    assert hidden.splits is None and hidden.private_fields == ()
    completed = adapt(_unannotated_factory()).completed(hidden)
    assert completed.splits == ("dev", "test") and completed.normalize_split("validation") == "dev"
    assert completed.private_fields == ("secret",)
    seen = task_spec("hand-written", _HandWrittenTask, ["chat"])  # the class itself: the spec says it all already
    assert adapt(_HandWrittenTask()).completed(seen) is seen
    both = seen.completed_by(("other",), None, ("secret", "prompt"))
    assert both.splits == ("dev", "test") and both.private_fields == ("secret", "prompt")
