"""A hand-written stand-in model for Thunder-NUBench tests (the prompt sweep, the results tables): it answers by
the prompt's last line, so every metric of a run is known in advance."""

from __future__ import annotations

from negkit.engine.requests import LoglikelihoodResult, ModelFingerprint


class EndingModel:
    """Picks choice1 (the gold) when the context ends with "Negation:", else choice3; scores are 0 for the pick
    and -5 for the others, so acc and acc_norm agree."""

    fingerprint = ModelFingerprint(backend="test", name="ending", dtype="float32")

    def __init__(self, items) -> None:
        self.by_sentence = {item.sentence: item for item in items}
        self.asked = 0

    def next_token_logprobs(self, contexts, candidates):  # a language model (never asked here)
        raise AssertionError("not a next-token task")

    def loglikelihood(self, requests):
        self.asked += len(requests)
        answers = []
        for request in requests:
            item = next(
                item for sentence, item in self.by_sentence.items() if sentence in request.context.split("\n\n")[-1]
            )
            pick = item.choices[0] if request.context.endswith("Negation:") else item.choices[2]
            answers.append(LoglikelihoodResult(0.0 if request.continuation == " " + pick else -5.0, False, 1))
        return answers
