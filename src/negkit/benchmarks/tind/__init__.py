"""This is not a Dataset (TIND; García-Ferrero et al., 2023): true/false probing of WordNet-generated sentences,
affirmative and negated, in groups; the authors' first-token protocol is the main task (:mod:`negkit.benchmarks.tind.task`).

Reader: :func:`negkit.benchmarks.tind.data.read_tind` (the authors' encrypted zip read in place, HF-layout files or the hub);
metrics: :func:`negkit.benchmarks.tind.metrics.tind_metrics` (the authors' accuracy buckets and coherence); intervals resample
whole groups. Its parts: :mod:`~negkit.benchmarks.tind.figures`, :mod:`~negkit.benchmarks.tind.harness` (the Harness
export, ids and hashes only), :mod:`~negkit.benchmarks.tind.training` (``negkit finetune --train tind``).
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from negkit.benchmarks.tind import harness
from negkit.benchmarks.tind.data import read_tind
from negkit.benchmarks.tind.fewshot import FEWSHOT_SOURCES
from negkit.benchmarks.tind.figures import tind_figures
from negkit.benchmarks.tind.task import TruthTask
from negkit.benchmarks.tind.training import TRAINING
from negkit.benchmarks.tind.wordnet_sources import WORDNET_RESOURCES
from negkit.kit.data.declared import declared_files
from negkit.kit.suites.description import DataSource, HarnessExport, SuiteDescription, TaskEntry, task_flag
from negkit.kit.suites.registry import register_suite

#: The papers behind the data and protocol (``negkit cite``).
BIBTEX = r"""@inproceedings{garciaferrero2023,
  title = {This is not a Dataset: A Large Negation Benchmark to Challenge Large Language Models},
  author = {Garc{\'i}a-Ferrero, Iker and Altuna, Bego{\~n}a and {\'A}lvez, Javier and Gonzalez-Dios, Itziar and Rigau, German},
  booktitle = {Proceedings of the 2023 Conference on Empirical Methods in Natural Language Processing},
  year = {2023},
  publisher = {Association for Computational Linguistics}
}"""

NAME = "tind"


def _entry(name: str, description: str, **fixed: Any) -> TaskEntry:
    """A TIND task entry: every variant samples its groups by seed; only the few-shot one takes the example source."""
    accepts = {"chat", "system_instruction"} | ({"fewshot_examples"} if fixed.get("fewshot") else set())
    factory = functools.partial(TruthTask, name=name, **fixed)
    return TaskEntry(name, factory, description, accepts=frozenset(accepts), always_seeded=True)


SUITE = register_suite(
    SuiteDescription(
        name=NAME,
        title="This is not a Dataset (TIND)",
        aliases=("this-is-not-a-dataset",),
        tasks=(
            _entry(NAME, "TIND true/false probing, zero-shot, the authors' first-token protocol"),
            _entry(
                f"{NAME}-fewshot",
                "TIND with the authors' 44 few-shot examples (4 per pattern) and prompts",
                fewshot=True,
            ),
            _entry(
                f"{NAME}-generate", "TIND, greedy generation; True iff the output contains 'true'", style="generate"
            ),
            _entry(
                f"{NAME}-continuation",
                "TIND, LM-harness style: log-likelihood of ' True' vs ' False' (not the authors' protocol)",
                style="continuation",
            ),
        ),
        main_task=NAME,
        data=DataSource(
            NAME,
            "the authors' release (HiTZ/This-is-not-a-dataset) or raw-public.zip in DATA/tind/",
            licence="Apache-2.0 (the authors' repository); distributed encrypted: keep it out of repositories",
            files=declared_files(Path(__file__).with_name("files.json")),
            citation="garciaferrero2023",
        ),
        bibtex=BIBTEX,
        extra_data={"wordnet": WORDNET_RESOURCES},
        reader=read_tind,
        scorer_help="TIND: the authors' accuracy buckets, negation analysis and coherence from HF fields + 'prediction'",
        interval_unit="group (the sentences generated from one WordNet pair)",
        primary_metric="all.accuracy",
        digits=2,
        scale=(0.0, 100.0),
        fractions=("p_true_auc.all",),
        figures=tind_figures,
        harness=HarnessExport(
            (harness.CHAT, harness.PLAIN),
            harness.write_harness_task,
            loaders={"load_tind": None},
            utils_source=harness.utils_source(),
            readme=harness.readme_commands,
        ),
        training=(TRAINING,),
        task_flags=(
            task_flag(
                "--fewshot-examples",
                option="fewshot_examples",
                choices=FEWSHOT_SOURCES,
                help="tind-fewshot: the authors' fixed 44 examples (default) or 4 per pattern drawn with "
                "--seed from the training split",
            ),
        ),
        order=10,
        groups=("negation-all",),
    )
)
