"""scripts/get_data.sh (main.sh's data step) on a copy of the checkout with no ../shared beside it: with the
loopback mirror of ../shared/data it downloads the default suites' data and exits 0; run again it downloads
nothing."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from data_server import serve

from negkit.commands.data import resolve_data_sets
from negkit.kit.data.declared import check_file
from negkit.kit.suites.registry import all_suites

REPO = Path(__file__).resolve().parents[2]


def test_the_data_step_fills_the_cache_from_the_mirror(shared_data, tmp_path):
    checkout = tmp_path / "fresh" / "negkit"  # no ../shared beside it
    for part in ("src", "scripts"):
        shutil.copytree(REPO / part, checkout / part, ignore=shutil.ignore_patterns("__pycache__"))
    cache = tmp_path / "cache"
    env = {
        **{k: v for k, v in os.environ.items() if k not in ("NEGKIT_DATA", "NEGKIT_DATA_MIRROR")},
        "NEGKIT_PYTHON": sys.executable,
        "PYTHONPATH": str(checkout / "src"),
        "NEGKIT_DATA_CACHE": str(cache),
    }
    with serve(shared_data) as mirror:
        env["NEGKIT_DATA_MIRROR"] = mirror.url
        run = subprocess.run(["bash", "scripts/get_data.sh"], cwd=checkout, env=env, capture_output=True, text=True)
        assert run.returncode == 0, run.stderr[-3000:]
        assert "licence:" in run.stderr
        names = [s.name for s in all_suites() if s.default_run and s.data.files]
        for data_set in resolve_data_sets(names):
            for file in data_set.files:
                if not file.one_of:
                    assert check_file(cache / file.path, file) is None, file.path
        mirror.log.clear()
        again = subprocess.run(["bash", "scripts/get_data.sh"], cwd=checkout, env=env, capture_output=True, text=True)
        assert again.returncode == 0 and mirror.log == [], again.stderr[-3000:]
