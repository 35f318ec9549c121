"""Read the BioScope and SFU corpora, print their statistics and how long reading took.

Usage (from the repository root, data in ../shared/data or NEGKIT_DATA):

    PYTHONPATH=src python perf/read_xml_corpora.py [--cue-in-scope] [--notes]

The figures are recorded in docs/corpora.md.
"""

from __future__ import annotations

import argparse
import time

from negkit.kit.data.locate import locate_dataset
from negkit.resolution.corpora.bioscope import read_bioscope
from negkit.resolution.corpora.sfu import read_sfu
from negkit.resolution.instances import corpus_statistics


def main() -> None:
    parser = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.splitlines()[0])
    parser.add_argument("--data", help="data root (default: NEGKIT_DATA, ./data, ../shared/data)")
    parser.add_argument("--cue-in-scope", action="store_true", help="keep cue words inside their scope")
    parser.add_argument("--notes", action="store_true", help="print what could not be mapped")
    args = parser.parse_args()
    bioscope = locate_dataset("bioscope", args.data)
    sources = [
        (name, lambda path=bioscope / f"{name}.xml": read_bioscope(path, cue_in_scope=args.cue_in_scope))
        for name in ("abstracts", "full_papers", "clinical_records_anon")
    ]
    sfu = locate_dataset("sfu", args.data) / "SFU_Review_Corpus_Negation_Speculation"
    sources.append(("sfu", lambda: read_sfu(sfu, cue_in_scope=args.cue_in_scope)))
    header = ("corpus", "sentences", "negated", "instances", "cues", "scopes", "events", "unmapped", "spec.", "seconds")
    print("".join(f"{cell:>12}" for cell in header))
    for name, read in sources:
        started = time.perf_counter()
        corpus = read()
        seconds = time.perf_counter() - started
        stats = corpus_statistics(corpus.sentences, corpus.unmapped)
        speculation = sum(len(sentence.speculation) for sentence in corpus.sentences)
        row = (
            name[:12],
            stats.sentences,
            stats.negated_sentences,
            stats.instances,
            stats.cues,
            stats.scopes,
            stats.events,
            stats.unmapped,
            speculation,
            f"{seconds:.2f}",
        )
        print("".join(f"{cell:>12}" for cell in row))
        if args.notes:
            for note in corpus.notes:
                print(f"    {note}")


if __name__ == "__main__":
    main()
