"""Verification of a TIND data set, official or generated.

For every group: its sentences are what the templates give for its header (realisation), every label is the
template's label for its role, every distractor obeys :class:`DistractorRules`; per pattern: counts of
groups, sentences and labels that deviate from the paper's truth table (these must all be documented
deviations, i.e. recorded in the template files); across splits: no group in two splits.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache

from negkit.benchmarks.tind.types import TindGroup, TruthItem, expected_label
from negkit.studies.tind.generator.distractors import DistractorRules
from negkit.studies.tind.generator.realise import Realiser, replaced_element
from negkit.studies.tind.generator.templates import load_pattern


@dataclass
class PatternCheck:
    """Counts for one pattern."""

    groups: int = 0
    sentences: int = 0
    documented_deviations: int = 0  # labels that differ from Table 10 as the template files record
    problems: Counter[str] = field(default_factory=Counter)


@dataclass
class CheckReport:
    """The result of :func:`check_groups`: per-pattern counts and the first problems found."""

    patterns: dict[int, PatternCheck] = field(default_factory=dict)
    examples: list[str] = field(default_factory=list)
    straddling_groups: int = 0

    @property
    def problem_count(self) -> int:
        return sum(sum(p.problems.values()) for p in self.patterns.values()) + self.straddling_groups

    @property
    def ok(self) -> bool:
        return self.problem_count == 0

    def add_problem(self, pattern_id: int, kind: str, detail: str, limit: int = 20) -> None:
        self.patterns.setdefault(pattern_id, PatternCheck()).problems[kind] += 1
        if len(self.examples) < limit:
            self.examples.append(f"#{pattern_id:02d} {detail}")


@cache
def _template_labels(pattern_id: int) -> dict[tuple[str, str], bool]:
    return {
        (str(t.template_id), role): label == "T"
        for t in load_pattern(pattern_id).templates
        for role, label in t.labels.items()
    }


def template_label(item: TruthItem) -> bool | None:
    """The label the template files give this item's template and role (``None`` if the template is unknown)."""
    return _template_labels(item.pattern_id).get((item.template_id.split("-", 1)[0], item.kind))


def check_groups(
    groups: Sequence[TindGroup],
    rules: DistractorRules | None = None,
    realiser: Realiser | None = None,
    report: CheckReport | None = None,
) -> CheckReport:
    """Check labels, realisation (if ``realiser``) and distractor rules (if ``rules``) of every group."""
    report = report or CheckReport()
    for group in groups:
        counts = report.patterns.setdefault(group.pattern_id, PatternCheck())
        counts.groups += 1
        counts.sentences += len(group.items)
        where = f"test {group.group_id:06d}"
        for item in group.items:
            wanted = template_label(item)
            if wanted is None:
                report.add_problem(group.pattern_id, "unknown template", f"{where}: template {item.template_id!r}")
            elif item.label != wanted:
                report.add_problem(group.pattern_id, "label", f"{where} {item.template_id} {item.kind}: wrong label")
            elif item.label != expected_label(item.pattern_id, item.is_distractor, item.is_negated):
                counts.documented_deviations += 1
        if realiser is not None:
            produced = realiser.realise_header(group).items
            differing = sum(1 for a, b in zip(produced, group.items) if a != b) + abs(len(produced) - len(group.items))
            if differing:
                report.add_problem(
                    group.pattern_id, "realisation", f"{where}: {differing} sentences differ from templates"
                )
        if rules is not None:
            for distractor in group.distractors:
                number = replaced_element(group.source, distractor)
                for problem in rules.violations(group.source, distractor, number):
                    report.add_problem(
                        group.pattern_id, problem.split(":", 1)[0], f"{where} {distractor.label}: {problem}"
                    )
    return report


def check_splits(split_items: Mapping[str, Iterable[TruthItem]], report: CheckReport) -> CheckReport:
    """Count groups whose items are in more than one split."""
    seen: dict[tuple[int, int], set[str]] = {}
    for split, items in split_items.items():
        for item in items:
            seen.setdefault(item.group_key, set()).add(split)
    for (pattern_id, group_id), splits in sorted(seen.items()):
        if len(splits) > 1:
            report.straddling_groups += 1
            if len(report.examples) < 20:
                report.examples.append(f"#{pattern_id:02d} test {group_id:06d} is in {', '.join(sorted(splits))}")
    return report


def format_report(report: CheckReport) -> str:
    """A per-pattern table of counts and problems, then examples."""
    lines = ["pattern  groups  sentences  table-deviations(documented)  problems"]
    for pattern_id, counts in sorted(report.patterns.items()):
        problems = ", ".join(f"{kind}: {n}" for kind, n in sorted(counts.problems.items())) or "-"
        lines.append(
            f"#{pattern_id:02d}    {counts.groups:6d}  {counts.sentences:9d}  {counts.documented_deviations:28d}  {problems}"
        )
    lines.append(f"groups in more than one split: {report.straddling_groups}")
    lines.append(f"problems: {report.problem_count}")
    lines += [f"  {example}" for example in report.examples]
    return "\n".join(lines)
