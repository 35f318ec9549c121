"""``samples.html``: every item of a run with its prompt, gold answer, prediction and group, filterable and
searchable, drawn a page at a time (a whole run's items open without freezing the browser), and TIND's text only
where the run holds it. Checked in headless chromium."""

from __future__ import annotations

import json
import subprocess

import pytest
from browser import find_chromium, render
from conftest import shared_data_path

from negkit.cli import main
from negkit.commands.samples_page import correctness, sample_rows, samples_html

needs_chromium = pytest.mark.skipif(
    find_chromium() is None,
    reason="chromium is not installed (scripts/setup.sh installs Debian's chromium; without it the browser check "
    "cannot run)",
)


def blimp_like(count: int) -> list[dict]:
    """Hand-made BLiMP-shaped records: minimal pairs in seven paradigms, every third one wrong."""
    return [
        {
            "item_id": f"blimp-p{index % 7}-{index}",
            "paradigm": f"paradigm_{index % 7}",
            "sentence_good": f"Teresa had not ever sold theater number {index}.",
            "sentence_bad": f"Teresa had probably ever sold theater number {index}.",
            "logprob_good": -3.5,
            "logprob_bad": -4.0,
            "prediction": "bad" if index % 3 == 0 else "good",
            "gold": "good",
            "correct": index % 3 != 0,
            "prompt": "",
        }
        for index in range(count)
    ]


def tind_like_redacted(count: int) -> list[dict]:
    """TIND-shaped records as a run inside a git working tree writes them: sentence and prompt as SHA-256s."""
    return [
        {
            "item_id": f"p01-g{index:06d}-s0000",
            "negation_type": "affirmation" if index % 2 else "negation",
            "label": True,
            "prediction": bool(index % 4),
            "sentence_sha256": f"{index:064x}",
            "prompt_sha256": f"{index + 1:064x}",
        }
        for index in range(count)
    ]


def test_rows_say_what_each_record_holds():
    rows = sample_rows("blimp-negation", blimp_like(3))
    assert rows[0][:5] == ["blimp-p0-0", "paradigm_0", "good", "bad", 0] and rows[1][4] == 1
    assert (
        rows[0][5]
        == "sentence_good: Teresa had not ever sold theater number 0.\nsentence_bad: Teresa had probably ever sold theater number 0."
    )
    tind = sample_rows("tind", tind_like_redacted(2))
    assert tind[0][1] == "negation" and tind[0][2] == "true" and tind[0][3] == "false" and tind[0][4] == 0
    assert tind[0][5].startswith("not held by this run (SHA-256") and tind[0][6] == 0
    paired = {
        "item_id": "cities-1",
        "topic": "cities",
        "affirmative": {"choices": ["True", "False"], "gold": 0, "prediction": 1, "correct": False},
        "negated": {"choices": ["True", "False"], "gold": 1, "prediction": 1, "correct": True},
        "both_correct": False,
        "prompt": ["Is it true? A.", "Is it true? Not A."],
    }
    (row,) = sample_rows("truth-negation", [paired])
    assert row[2] == "affirmative: 0: True; negated: 1: False" and row[3] == "affirmative: 1: False; negated: 1: False"
    assert row[4] == 0 and row[5] == "[1] Is it true? A.\n\n[2] Is it true? Not A."
    assert rows[0][8] == "logprob_good -3.5, logprob_bad -4"  # a short line of the scores, in its own column
    scored = {"item_id": "s", "choices": [" A", " B"], "scores": [-0.5, -1.25], "gold": 0, "prediction": 0}
    assert sample_rows("neqa", [scored])[0][8] == "A -0.5, B -1.25"
    assert correctness({"gold": "entailment", "prediction": "Entailment"}) is True
    assert correctness({"relation": "x", "query": {"hit": True}}) is None


def test_a_record_with_nan_opens():
    (row,) = sample_rows("neg-136", [{"item_id": "n", "spearman": float("nan"), "top": [float("inf"), 1.0]}])
    assert json.loads(row[7]) == {"spearman": "nan", "top": ["inf", 1.0]}


def test_the_page_cannot_be_broken_out_of():
    record = {"item_id": "x", "gold": "a", "prediction": "b", "prompt": "</script><script>alert(1)</script><!--"}
    page = samples_html([("scone", [record])])
    data = page.split('id="negkit-samples">', 1)[1].split("</script>", 1)[0]
    assert json.loads(data)["tasks"][0]["rows"][0][5] == record["prompt"]


@needs_chromium
def test_a_large_run_opens_filters_and_searches(tmp_path):
    """The largest sets at full size: BLiMP negation's 7,000 pairs (14,000 scored sentences) and TIND's 44,992 test
    sentences (as a run inside a git working tree writes them: hashes, no text)."""
    page = tmp_path / "samples.html"
    page.write_text(samples_html([("blimp-negation", blimp_like(7_000)), ("tind", tind_like_redacted(44_992))]))
    rendered = render(
        page,
        actions=(
            "window.negkitSamples.set('', '', '', '')",
            "window.negkitSamples.set('blimp-negation', '0', '', '')",
            "window.negkitSamples.set('blimp-negation', '1', 'paradigm_3', '')",
            "window.negkitSamples.set('', '', '', 'theater number 6543.')",
            "window.negkitSamples.set('tind', '', 'negation', '')",
            "document.getElementById('next').click(); document.getElementById('page').textContent",
            "document.querySelector('#samples tbody tr.item').click(); "
            "document.querySelector('#samples tr.detail').textContent.includes('sentence_sha256')",
            "document.querySelector('#samples td.prompt').className",
        ),
    )
    assert rendered.console_errors == [] and rendered.requests == []  # offline: nothing fetched
    everything, wrong, group, searched, tind, page_text, detail, prompt_class = rendered.evaluated
    assert everything == {"shown": 51_992, "total": 51_992, "rows": 100}  # a page of rows, not 51,992
    assert wrong["shown"] == 2_334 and wrong["rows"] == 100  # every third of 7,000
    assert group["shown"] == sum(1 for i in range(7_000) if i % 7 == 3 and i % 3 != 0)
    assert searched == {"shown": 1, "total": 51_992, "rows": 1}
    assert tind["shown"] == 22_496 and page_text == "page 2 of 225"
    assert detail is True and prompt_class == "prompt hash"


@needs_chromium
def test_a_tind_run_inside_a_git_tree_shows_hashes_not_sentences(tmp_path):
    data = shared_data_path()
    shared_data_path("tind")
    subprocess.run(["git", "init", "-q", str(tmp_path / "repo")], check=True)
    out = tmp_path / "repo" / "run"
    arguments = ["eval", "--model", "random", "--tasks", "tind,scone", "--limit", "tind=3,scone=20"]
    assert main([*arguments, "--data", str(data), "--out", str(out), "--no-progress", "--bootstrap", "0"]) == 0
    records = [json.loads(line) for line in (out / "tind.samples.jsonl").read_text().splitlines()]
    assert records and all("sentence" not in r and "prompt" not in r and "prompt_sha256" in r for r in records)
    page = (out / "samples.html").read_text()
    assert 'href="samples.html"' in (out / "report.html").read_text()
    # the same items outside a git working tree: the records hold the sentences, the git run's page none of them
    plain = tmp_path / "plain"
    assert main([*arguments, "--data", str(data), "--out", str(plain), "--no-progress", "--bootstrap", "0"]) == 0
    sentences = [json.loads(line)["sentence"] for line in (plain / "tind.samples.jsonl").read_text().splitlines()]
    assert sentences and all(sentence in (plain / "samples.html").read_text() for sentence in sentences)
    assert not any(sentence in page for sentence in sentences)
    rows = json.loads(page.split('id="negkit-samples">', 1)[1].split("</script>", 1)[0])
    (tind,) = [task for task in rows["tasks"] if task["task"] == "tind"]
    assert all(row[6] == 0 and row[5].startswith("not held by this run") for row in tind["rows"])
    rendered = render(out / "samples.html", actions=("window.negkitSamples.set('scone', '', 'no_negation', '')",))
    assert rendered.console_errors == [] and rendered.evaluated[0]["shown"] > 0
