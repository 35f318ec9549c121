"""The task contract: the commands ask a task for its optional members only through the kit's adapter
(:mod:`negkit.kit.tasks.adapter`), read what a task takes from its spec without building it, and a run builds
each task it runs exactly once."""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from conftest import NUBENCH_FIXTURE

from negkit.commands.eval.evaluate import evaluate
from negkit.commands.eval.options import EvalOptions
from negkit.kit.suites import all_suites

SOURCE = Path(__file__).resolve().parents[2] / "src" / "negkit"
ADAPTER = SOURCE / "kit" / "tasks" / "adapter.py"
#: ``getattr(task, ...)``, ``hasattr(prepared.task, ...)``, ``getattr(built[task], ...)``, ``getattr(main_task, ...)``
PROBE = re.compile(r"\b(getattr|hasattr)\(\s*(\w+\.)*(task|\w+_task|built\[\w+\])\s*,")


def test_no_module_probes_a_task_outside_the_adapter():
    found = [
        f"{path.relative_to(SOURCE)}:{number}: {line.strip()}"
        for path in sorted(SOURCE.rglob("*.py"))
        if path != ADAPTER
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if PROBE.search(line)
    ]
    assert not found, "ask through negkit.kit.tasks.adapter instead:\n" + "\n".join(found)


def test_the_probe_pattern_finds_what_it_should():  # the grep above is only as good as its pattern
    for line in ('getattr(task, "accepts", None)', "hasattr(prepared.task, 'x')", "getattr(built[task], 'seeds')"):
        assert PROBE.search(line), line
    assert not PROBE.search("getattr(model, 'bind_answers', None)")


@contextmanager
def counted_builds() -> Iterator[Counter[str]]:
    """Every registered task's factory wrapped to count its calls, by task name; restored on exit."""
    counts: Counter[str] = Counter()
    originals: list[tuple[Any, Callable[..., Any]]] = []

    def counting(name: str, factory: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(factory)  # the spec reads the factory's parameters
        def build(**options: Any) -> Any:
            counts[name] += 1
            return factory(**options)

        return build

    for suite in all_suites():
        for entry in suite.tasks:
            originals.append((entry, entry.factory))
            object.__setattr__(entry, "factory", counting(entry.name, entry.factory))  # a frozen dataclass
    try:
        yield counts
    finally:
        for entry, factory in originals:
            object.__setattr__(entry, "factory", factory)


def test_a_run_builds_each_task_once(tmp_path):
    options = EvalOptions(
        data=str(NUBENCH_FIXTURE), out=tmp_path, progress=False, limit=4, seed=3, num_fewshot={"nubench-fewshot": 1}
    )
    with counted_builds() as counts:
        evaluate("random", ["nubench", "nubench-fewshot"], options)
    assert counts == {"nubench": 1, "nubench-fewshot": 1}
