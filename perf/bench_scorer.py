"""Time reading and scoring the CD-SCO training file (3,644 sentences) against itself and a perturbed copy.

Run from the repository root (the data is read in place from ../shared/data or NEGKIT_DATA):

    PYTHONPATH=src python perf/bench_scorer.py [--repeat 5] [--data PATH]

Prints the best and median wall time and the best CPU time of: reading the two files as raw lines, the *SEM 2012 scorer
(validation + counting + table), NIS, and the whole `negkit resolution score` path; and, for comparison,
parsing the file into ResolutionSentence objects. The perturbed copy drops every third scope cell and
turns every fifth cue into its whole word, so every counting branch runs.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from negkit.cli.resolution.corpora import score_files
from negkit.kit.data.locate import find_data_root
from negkit.resolution.corpora.cdsco import read_cdsco, read_lines
from negkit.resolution.metrics.nis import score_nis
from negkit.resolution.metrics.starsem import score_starsem

TRAIN = "SEM-2012-SharedTask-CD-SCO-training-09032012.txt"


def perturb(text: str, seed: int = 13) -> str:
    """A system file: the gold file with scope cells dropped and cues widened, deterministically."""
    rng = random.Random(seed)
    out = []
    for line in text.split("\n"):
        fields = line.split("\t")
        if len(fields) >= 10:
            for column in range(7, len(fields), 3):
                if fields[column + 1] != "_" and rng.random() < 1 / 3:
                    fields[column + 1] = "_"
                if fields[column] != "_" and rng.random() < 1 / 5:
                    fields[column] = fields[3]
        out.append("\t".join(fields))
    return "\n".join(out)


def timed(function, repeat: int) -> tuple[float, float, float]:
    """Best and median wall time, and best CPU time of this process (robust on a shared machine)."""
    wall, cpu = [], []
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        function()
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    return min(wall), statistics.median(wall), min(cpu)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--data", help="data root holding cd-sco/ (default: NEGKIT_DATA, ./data, ../shared/data)")
    args = parser.parse_args(argv)
    root = find_data_root(args.data)
    if root is None or not (root / "cd-sco" / TRAIN).exists():
        print("bench_scorer: CD-SCO training file not found (use --data or NEGKIT_DATA)", file=sys.stderr)
        return 2
    path = root / "cd-sco" / TRAIN
    gold = read_lines(path)
    text = path.read_text(encoding="utf-8")
    with tempfile.TemporaryDirectory() as tmp:
        perturbed_path = Path(tmp) / "perturbed.txt"
        perturbed_path.write_text(perturb(text), encoding="utf-8")
        perturbed = read_lines(perturbed_path)
        cases = [
            ("read raw lines (gold + system)", lambda: (read_lines(path), read_lines(perturbed_path))),
            ("parse into ResolutionSentence", lambda: read_cdsco(path)),
            ("*SEM score gold vs gold", lambda: score_starsem(gold, gold).format_table()),
            ("*SEM score gold vs perturbed", lambda: score_starsem(gold, perturbed).format_table()),
            ("NIS gold vs perturbed", lambda: score_nis(gold, perturbed)),
            ("read + *SEM + NIS, gold vs itself", lambda: score_files(str(path), [str(path)])),
            ("read + *SEM + NIS, gold vs perturbed", lambda: score_files(str(path), [str(perturbed_path)])),
        ]
        print(
            f"CD-SCO training file: {len(gold.lines)} lines, {len(text.split(chr(10) * 2))} sentences; "
            f"{args.repeat} runs"
        )
        print(f"  {'':<40} {'wall best':>11} {'wall median':>12} {'CPU best':>10}")
        for name, function in cases:
            best, median, cpu = timed(function, args.repeat)
            print(f"  {name:<40} {best * 1000:8.1f} ms {median * 1000:9.1f} ms {cpu * 1000:7.1f} ms")
        result = score_starsem(gold, perturbed)
        print("\n*SEM table, gold vs perturbed copy:")
        print(result.format_table(), end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
