"""scripts/negation_training_gpu.sh, issue 30's one prepared GPU run: which trainings and evaluations it starts, with
which mixes, and what it packs for the way back, checked with a stand-in for negkit that records its arguments
(the trainings and evaluations themselves are tested in tests/kit/test_training_mix.py)."""

from __future__ import annotations

import shutil
import subprocess
import tarfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "negation_training_gpu.sh"

#: Records each call's arguments, one line per call, and writes what a finished run leaves behind.
STAND_IN = r"""
out=""; prev=""
for arg in "$@"; do [ "$prev" = "--out" ] && out=$arg; prev=$arg; done
echo "$*" >> "$CALLS"
mkdir -p "$out"
if [ "$1" = finetune ]; then
  echo '{"adapter": {"weights_sha256": "abc"}}' > "$out/negkit_training.json"
  echo '{"step": 1}' > "$out/train_log.jsonl"
  echo weights > "$out/adapter_model.safetensors"
else
  echo '{}' > "$out/results.json"; echo html > "$out/report.html"
fi
"""


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_the_run_starts_every_training_and_evaluation_and_packs_what_comes_back(tmp_path):
    stand_in = tmp_path / "negkit.sh"
    stand_in.write_text(STAND_IN)
    calls = tmp_path / "calls.txt"
    env = {
        "PATH": "/usr/bin:/bin",
        "NEGKIT": f"bash {stand_in}",
        "CALLS": str(calls),
        "DEVICE": "cpu",
        "JOBS": "3",
        "PACK_EVERY": "1",
    }
    done = subprocess.run(
        ["bash", str(SCRIPT), str(tmp_path / "work"), str(tmp_path / "back")],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    lines = calls.read_text().splitlines()
    trainings = {line.split("--out ")[1].split()[0].rsplit("/", 1)[1]: line for line in lines if line[:8] == "finetune"}
    assert set(trainings) == {
        "recipe-s0",
        "recipe-s0-repeat",
        "recipe-s1",
        "recipe-s2",
        "no-extra-losses",
        "without-scone",
        "without-condaqa",
        "with-kl",
    }
    assert all("--device cpu" in line and "--max-steps 520" in line for line in trainings.values())
    assert "--seed 2" in trainings["recipe-s2"] and "--unlikelihood-weight 0.5" in trainings["recipe-s2"]
    assert "--unlikelihood-weight" not in trainings["no-extra-losses"]
    without_scone = trainings["without-scone"]
    assert "scone=" not in without_scone and "sick@scone" not in without_scone and "sick@nan-nli=1200" in without_scone
    assert "--phases tind:affirmative;tind,sick@nan-nli,sick@negnli-rte,condaqa " in without_scone
    assert "condaqa" not in trainings["without-condaqa"].split("--phases")[1].split("--seed")[0]
    assert "replay=800" in trainings["with-kl"] and "--kl-weight 0.5" in trainings["with-kl"]
    evaluations = [line for line in lines if line.startswith("eval") and "warm-up" not in line]
    adapters = {line.split("--adapter ")[1].rsplit("/", 1)[1] for line in evaluations if "--adapter" in line}
    assert adapters == set(trainings) - {"recipe-s0-repeat"}  # the repeat only checks the adapter's bytes
    assert len(evaluations) == len(adapters) + 1  # and the base model's
    back = tmp_path / "back"
    assert sorted(path.name for path in back.iterdir()) == [
        "evals-base.tgz",
        "evals-recipe-s2.tgz",
        "evals-without-condaqa.tgz",
        "training.tgz",
    ]
    with tarfile.open(back / "evals-base.tgz") as packed:
        names = packed.getnames()
    assert "eval-base/results.json" in names and not any(name.endswith("report.html") for name in names)
    with tarfile.open(back / "training.tgz") as packed:
        names = set(packed.getnames())
    assert {"runs/recipe-s1/negkit_training.json", "runs/recipe-s0/adapter_model.safetensors"} <= names
    assert "runs/recipe-s1/adapter_model.safetensors" not in names  # one adapter travels back, for checking
    assert "all done" in (tmp_path / "work" / "logs" / "status.txt").read_text()
