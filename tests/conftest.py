"""Shared test fixtures.

Real data is read in place from ``../shared/data`` beside the repository (or ``NEGKIT_TEST_DATA``); tests
that need it skip with the reason when it is absent. Nothing from it is copied into the repository.

``NEGKIT_TEST_DEVICE`` (default ``cpu``) is where the device-aware tests put their models: the tiny models of
``tests/tiny_models.py`` (engine, prefix tree) and the GPU tests of ``tests/models/test_cuda_device.py``, which skip
unless it names a CUDA device. ``perf/gpu_check.py`` sets it to ``cuda`` on a GPU machine.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from negkit.studies.tind.generator.wordnet import default_wordnet_folder

REPO_ROOT = Path(__file__).resolve().parents[1]
#: The tests folder (helper scripts the tests start as child processes live here).
TESTS = REPO_ROOT / "tests"
#: The hand-written Thunder-NUBench sample (its data is gated), in the data set's layout.
NUBENCH_FIXTURE = TESTS / "fixtures" / "thunder_nubench"
SHARED_DATA = Path(os.environ.get("NEGKIT_TEST_DATA", REPO_ROOT.parent / "shared" / "data"))
# A test never finds data in the developer's own cache (~/.cache/negkit/data): the cache is a folder that does
# not exist unless a test sets NEGKIT_DATA_CACHE itself.
os.environ["NEGKIT_DATA_CACHE"] = str(Path(tempfile.gettempdir()) / f"negkit-tests-no-data-cache-{os.getpid()}")
# Nor does it read or grow the developer's negkit cache (~/.cache/negkit: file hashes, converted models, the fast
# dtype): each test process (and the processes it starts) has a cache of its own.
os.environ["NEGKIT_CACHE"] = str(Path(tempfile.gettempdir()) / f"negkit-tests-cache-{os.getpid()}")
#: The device of the device-aware tests (``NEGKIT_TEST_DEVICE``: ``cpu``, ``cuda`` or ``cuda:N``; default ``cpu``).
TEST_DEVICE = os.environ.get("NEGKIT_TEST_DEVICE", "").strip() or "cpu"


def shared_data_path(*parts: str) -> Path:
    """Path under the shared data folder; skips the calling test when it does not exist."""
    path = SHARED_DATA.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"shared data not found: {path} (place the shared data folder beside the repository)")
    return path


def wordnet_database_or_skip() -> Path:
    """The WordNet 3.0 database folder negkit reads (``WNSEARCHDIR``, ``$WNHOME/dict``, ``/usr/share/wordnet``);
    skips the calling test when its ``data.noun`` is absent. Any other problem is negkit's and fails the test."""
    folder = default_wordnet_folder()
    if not (folder / "data.noun").is_file():
        pytest.skip(f"WordNet 3.0 database not found in {folder} (install Debian's wordnet-base or set WNSEARCHDIR)")
    return folder


@pytest.fixture
def shared_data():
    """The shared data folder (``../shared/data``); skips the test when absent."""
    return shared_data_path()


@pytest.fixture(scope="module")
def tiny_model_folder(tmp_path_factory):
    """A tiny random causal LM and its tokenizer saved in a folder (tests/tiny_models.py)."""
    from tiny_models import save_tiny_causal

    return save_tiny_causal(tmp_path_factory.mktemp("tiny-model"))


@pytest.fixture(scope="module")
def synthetic_data(tmp_path_factory):
    """A TIND-like data folder (test.jsonl, train.jsonl) of invented sentences."""
    from tiny_models import synthetic_truth_items

    from negkit.benchmarks.tind.data import write_tind_jsonl

    folder = tmp_path_factory.mktemp("tind-synthetic")
    items = synthetic_truth_items(groups_per_pattern=2)
    write_tind_jsonl(items, folder / "test.jsonl", extended=True)
    write_tind_jsonl(items, folder / "train.jsonl", extended=True)
    return folder


#: Test files of 10 s or more (``pytest --durations``), started first: pytest-xdist hands tests out in collection
#: order, so the long ones no longer come last to keep one worker busy while the other has finished.
LONG_FIRST = (
    "tests/commands/test_data_get.py",
    "tests/training/test_finetune.py",
    "tests/cli/test_readme.py",
    "tests/runs/test_distributed.py",
    "tests/runs/test_durability.py",
    "tests/benchmarks/tind/test_malformed_tind.py",
    "tests/studies/tind/test_tind_transfer.py",
    "tests/commands/test_html_report.py",
    "tests/models/test_openai_backend.py",
    "tests/runs/test_run_store.py",
    "tests/resolution/test_graphs.py",
    "tests/scripts/test_gpu_check.py",
    "tests/scripts/test_fresh_install.py",
    "tests/resolution/test_norec_corpus.py",
)


def pytest_collection_modifyitems(session, config, items):
    """Puts the tests of :data:`LONG_FIRST` first (in that order), each file's tests together, the rest after in
    collection order."""
    rank = {path: index for index, path in enumerate(LONG_FIRST)}
    position = {id(item): index for index, item in enumerate(items)}

    def order(item) -> tuple[int, int]:
        path = item.nodeid.split("::")[0]
        return (rank.get(path, len(LONG_FIRST)), position[id(item)])

    items.sort(key=order)
