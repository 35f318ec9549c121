"""negkit's *SEM 2012 table against the official ``eval.cd-sco.pl`` v2.2 on seeded perturbed system files.

For each CD-SCO gold file (training, dev, the two test stories, and the two test stories concatenated) the script
writes system files that are the gold file with a share of its sentences perturbed (1 % to 100 %), runs the
official Perl script on each, scores the same pair with negkit (``score_starsem(..., strict=False)``: accept what
the official script accepts), and compares: the official table must equal negkit's byte for byte, and a file the
official script rejects must be rejected by negkit. Exit status 1 when any file differs.

    PYTHONPATH=src python perf/check_starsem_official.py --official PATH/eval.cd-sco.pl [--scale 1.0]

The official script is not part of negkit (get it from the *SEM 2012 shared task's CD-SCO release). On Perl 5.22
and later its tests ``if (@{$a[$i]})`` on array slots that were never filled die ("Can't use an undefined value
as an ARRAY reference"); the script runs a copy in ``--work`` where each such test reads
``(defined $a[$i] && @{$a[$i]})``, which is what older Perls evaluated; nothing else is changed. The copy's
SHA-256 and the original's are printed.

Perturbations (each perturbed sentence gets one to three): cue cells dropped (a multiword cue made partial; in one
file of ten also an instance's only cue, which both scorers must reject), added, moved to the next token, changed
in case, an affix cue written as the whole word; instances added, removed (a sentence left without one becomes
``***``), duplicated, merged and reordered; scope cells dropped or added (punctuation included), an abbreviation's
final period removed or added, a non-ASCII letter added; event cells dropped, added or changed on the same token;
sentences turned to ``***`` and ``***`` sentences given an instance. With ``--scale 1`` the files are 83 against the
training file, 250 each against dev, cardboard and circle, and 150 against the concatenated test set (983).
"""

from __future__ import annotations

import argparse
import hashlib
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from negkit.errors import NegkitError
from negkit.kit.data.locate import find_data_root
from negkit.resolution.corpora.cdsco import read_lines
from negkit.resolution.metrics.starsem import score_starsem

GOLD_FILES = {  # name -> (file names under cd-sco/, files at --scale 1)
    "training": (("SEM-2012-SharedTask-CD-SCO-training-09032012.txt",), 83),
    "dev": (("SEM-2012-SharedTask-CD-SCO-dev-09032012.txt",), 250),
    "cardboard": (("SEM-2012-SharedTask-CD-SCO-test-cardboard-GOLD.txt",), 250),
    "circle": (("SEM-2012-SharedTask-CD-SCO-test-circle-GOLD.txt",), 250),
    "test": (
        ("SEM-2012-SharedTask-CD-SCO-test-cardboard-GOLD.txt", "SEM-2012-SharedTask-CD-SCO-test-circle-GOLD.txt"),
        150,
    ),
}
SHARES = (0.01, 0.02, 0.05, 0.1, 0.2, 0.35, 0.5, 0.75, 1.0)
#: ``if (@{$array[$index]})`` and the like, rewritten as a definedness test (see the module doc).
_ARRAY_TEST = re.compile(r"\(@\{(\$\w+\[\$\w+\])\}\)")

Sentence = list[list[str]]  # token lines as fields


def patched_copy(official: Path, folder: Path) -> Path:
    """The official script with its array tests made safe for modern Perl (the only change)."""
    text = official.read_text(encoding="latin-1")
    patched, changes = _ARRAY_TEST.subn(r"(defined \1 && @{\1})", text)
    path = folder / "eval.cd-sco.patched.pl"
    path.write_text(patched, encoding="latin-1")
    print(
        f"official script {official} sha256 {hashlib.sha256(text.encode('latin-1')).hexdigest()}; "
        f"{changes} array tests made definedness tests -> sha256 {hashlib.sha256(patched.encode('latin-1')).hexdigest()}"
    )
    return path


def split_sentences(text: str) -> list[Sentence]:
    """The file's sentences (blank-line separated), each as its token lines' fields."""
    return [[line.split("\t") for line in block.split("\n")] for block in text.strip("\n").split("\n\n")]


def join_sentences(sentences: list[Sentence]) -> str:
    return "\n\n".join("\n".join("\t".join(fields) for fields in sentence) for sentence in sentences) + "\n\n"


def _instances(sentence: Sentence) -> int:
    cells = sentence[0][7:]
    return 0 if cells == ["***"] else len(cells) // 3


def _set_instances(sentence: Sentence, triples: list[list[list[str]]]) -> None:
    """Replace the negation columns: ``triples[k][token]`` is instance k's (cue, scope, event) on a token."""
    for token, fields in enumerate(sentence):
        del fields[7:]
        if triples:
            for triple in triples:
                fields.extend(triple[token])
        else:
            fields.append("***")


def _triples(sentence: Sentence) -> list[list[list[str]]]:
    return [[fields[7 + 3 * k : 10 + 3 * k] for fields in sentence] for k in range(_instances(sentence))]


def _new_instance(sentence: Sentence, rng: random.Random) -> list[list[str]]:
    cue = rng.randrange(len(sentence))
    scope = {index for index in range(len(sentence)) if index != cue and rng.random() < 0.4}
    event = rng.choice(sorted(scope)) if scope and rng.random() < 0.6 else None
    return [
        [fields[3] if index == cue else "_", fields[3] if index in scope else "_", fields[3] if index == event else "_"]
        for index, fields in enumerate(sentence)
    ]


def perturb_sentence(sentence: Sentence, rng: random.Random, may_drop_only_cue: bool = False) -> None:
    """Apply one random perturbation (see the module doc) to ``sentence`` in place; with ``may_drop_only_cue`` an
    instance may lose its only cue (a file both scorers must reject)."""
    triples = _triples(sentence)
    if not triples:
        if rng.random() < 0.7:
            _set_instances(sentence, [_new_instance(sentence, rng)])
        return
    kind = rng.choice(
        [
            "drop_cue",
            "add_cue",
            "shift_cue",
            "cue_case",
            "affix_whole",
            "add_instance",
            "remove_instance",
            "duplicate",
            "merge",
            "reorder",
            "drop_scope",
            "add_scope",
            "abbreviation",
            "non_ascii",
            "drop_event",
            "add_event",
            "change_event",
            "to_stars",
        ]
    )
    k = rng.randrange(len(triples))
    triple = triples[k]
    cues = [t for t, cells in enumerate(triple) if cells[0] != "_"]
    scope = [t for t, cells in enumerate(triple) if cells[1] != "_"]
    words = [fields[3] for fields in sentence]
    if kind == "drop_cue" and (len(cues) > 1 or (cues and may_drop_only_cue)):
        triple[rng.choice(cues)][0] = "_"  # a partial multiword cue, or (rejected) an instance without a cue
    elif kind == "add_cue":
        token = rng.randrange(len(sentence))
        triple[token][0] = words[token]
    elif kind == "shift_cue" and cues:
        token = rng.choice(cues)
        target = min(token + 1, len(sentence) - 1)
        triple[token][0], triple[target][0] = "_", words[target]
    elif kind == "cue_case" and cues:
        token = rng.choice(cues)
        triple[token][0] = triple[token][0].swapcase()
    elif kind == "affix_whole" and cues:
        token = rng.choice(cues)
        triple[token][0] = words[token]
    elif kind == "add_instance":
        triples.insert(rng.randrange(len(triples) + 1), _new_instance(sentence, rng))
    elif kind == "remove_instance":
        del triples[k]
    elif kind == "duplicate":
        triples.insert(rng.randrange(len(triples) + 1), [list(cells) for cells in triple])
    elif kind == "merge" and len(triples) > 1:
        other = triples.pop((k + 1) % len(triples))
        triple = triples[k if k < len(triples) else 0]
        for cells, extra in zip(triple, other):
            for column in range(3):
                if cells[column] == "_":
                    cells[column] = extra[column]
    elif kind == "reorder":
        rng.shuffle(triples)
    elif kind == "drop_scope" and scope:
        triple[rng.choice(scope)][1] = "_"
    elif kind == "add_scope":
        token = rng.randrange(len(sentence))  # punctuation tokens included
        triple[token][1] = words[token]
    elif kind == "abbreviation" and scope:
        token = rng.choice(scope)
        cell = triple[token][1]
        triple[token][1] = cell[:-1] if cell.endswith(".") and len(cell) > 1 else cell + "."
    elif kind == "non_ascii" and scope:
        token = rng.choice(scope)
        triple[token][1] = triple[token][1] + rng.choice("éüñø")
    elif kind == "drop_event":
        for cells in triple:
            cells[2] = "_"
    elif kind == "add_event" and scope:
        token = rng.choice(scope)
        triple[token][2] = words[token]
    elif kind == "change_event":
        events = [t for t, cells in enumerate(triple) if cells[2] != "_"]
        if events:
            token = rng.choice(events)
            triple[token][2] = triple[token][2][::-1] + "x"
    elif kind == "to_stars":
        triples = []
    _set_instances(sentence, triples)


def perturbed_file(gold: list[Sentence], seed: str) -> tuple[str, float]:
    """A system file: the gold sentences with a seeded share perturbed, and that share."""
    rng = random.Random(seed)
    share = rng.choice(SHARES)
    may_drop_only_cue = rng.random() < 0.1  # one file in ten
    system = [[list(fields) for fields in sentence] for sentence in gold]
    chosen = rng.sample(range(len(system)), max(1, round(share * len(system))))
    for index in chosen:
        for _ in range(rng.randint(1, 3)):
            perturb_sentence(system[index], rng, may_drop_only_cue)
    return join_sentences(system), share


def official_table(script: Path, gold: Path, system: Path, perl: str) -> str | None:
    """The official script's output, or None when it rejected the pair (died, or printed no table)."""
    done = subprocess.run([perl, str(script), "-g", str(gold), "-s", str(system)], capture_output=True)
    output = done.stdout.decode("utf-8", errors="surrogateescape")
    return output if done.returncode == 0 and "Cues:" in output else None


def negkit_table(gold: Path, system: Path) -> str | None:
    """negkit's table in lenient mode (what the official script accepts), or None when it rejects the pair."""
    try:
        return score_starsem(read_lines(gold), read_lines(system), strict=False).format_table()
    except NegkitError:
        return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--official", type=Path, required=True, help="the official eval.cd-sco.pl (v2.2)")
    parser.add_argument("--data", help="data root holding cd-sco/ (default: NEGKIT_DATA, ./data, ../shared/data)")
    parser.add_argument("--scale", type=float, default=1.0, help="share of the 983 files to run (default 1)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--perl", default="perl")
    parser.add_argument("--work", type=Path, help="folder for the files (default: a temporary folder, removed)")
    parser.add_argument("--show", type=int, default=3, help="differences to print in full (default 3)")
    args = parser.parse_args(argv)
    root = find_data_root(args.data)
    if not args.official.is_file() or shutil.which(args.perl) is None:
        print(f"check_starsem_official: error: need {args.official} and {args.perl}", file=sys.stderr)
        return 2
    if root is None or not (root / "cd-sco").is_dir():
        print("check_starsem_official: error: cd-sco data not found (use --data or NEGKIT_DATA)", file=sys.stderr)
        return 2
    work = args.work or Path(tempfile.mkdtemp(prefix="negkit-starsem-"))
    work.mkdir(parents=True, exist_ok=True)
    script = patched_copy(args.official, work)
    tally = {
        "same table": 0,
        "both rejected": 0,
        "tables differ": 0,
        "only the official rejected": 0,
        "only negkit rejected": 0,
    }
    shown, start = 0, time.perf_counter()
    for name, (files, count) in GOLD_FILES.items():
        text = "".join((root / "cd-sco" / file).read_text(encoding="utf-8") for file in files)
        gold_path = work / f"gold-{name}.txt"
        gold_path.write_text(text, encoding="utf-8")
        gold = split_sentences(text)
        for number in range(max(1, round(count * args.scale))):
            system_text, share = perturbed_file(gold, f"{args.seed}/{name}/{number}")
            system_path = work / f"system-{name}-{number:03d}.txt"
            system_path.write_text(system_text, encoding="utf-8")
            official, ours = (
                official_table(script, gold_path, system_path, args.perl),
                negkit_table(gold_path, system_path),
            )
            if official is not None and ours is not None:
                outcome = "same table" if official == ours else "tables differ"
            else:
                outcome = {
                    (True, True): "both rejected",
                    (True, False): "only the official rejected",
                    (False, True): "only negkit rejected",
                }[(official is None, ours is None)]
            tally[outcome] += 1
            if outcome not in ("same table", "both rejected") and shown < args.show:
                shown += 1
                print(f"--- {outcome}: {system_path} (share {share})\n--- official:\n{official}\n--- negkit:\n{ours}")
    total = sum(tally.values())
    print(
        f"{total} perturbed system files in {time.perf_counter() - start:.0f} s: "
        + ", ".join(f"{outcome} {count}" for outcome, count in tally.items())
    )
    if args.work is None:
        shutil.rmtree(work, ignore_errors=True)
    return 0 if tally["same table"] + tally["both rejected"] == total else 1


if __name__ == "__main__":
    sys.exit(main())
