"""What an OpenAI-compatible server reports about the model it serves, as it enters the model's fingerprint.

``GET /v1/models`` lists the served models, each an entry with at least an ``id``; servers add their own fields:
vLLM ``root`` (the weights' path or hub name), ``parent`` and ``max_model_len``; llama.cpp ``meta`` (vocabulary
size, training context, embedding size, parameter count, file size); others a revision or checksum. Every field of
the entry enters the fingerprint except those that change from one request to the next
(:data:`VOLATILE_MODEL_FIELDS`), so a server that swaps the weights behind the same model name gives other run
store keys wherever its entry changes (and a field unknown here counts rather than being missed). A server that
reports nothing about the model is fingerprinted as :data:`NOT_REPORTED`, with the reason in the record.
"""

from __future__ import annotations

import json
from typing import Any

#: Fields of a ``/v1/models`` entry left out of the fingerprint: they change between two requests to one server
#: (vLLM and llama.cpp set ``created`` to the time of the request; vLLM's ``permission`` has a fresh id and time;
#: llama.cpp's router mode reports whether the model is loaded as ``status``).
VOLATILE_MODEL_FIELDS = frozenset({"object", "created", "permission", "status"})
#: The fingerprint's value when the server reports nothing about the model.
NOT_REPORTED = "not reported"


def not_reported(reason: str) -> tuple[str, dict[str, Any]]:
    """The fingerprint value and record of a server that reported nothing about the model, and why."""
    return NOT_REPORTED, {"reported": False, "reason": reason}


def model_identity(answer: dict[str, Any], model: str) -> tuple[str, dict[str, Any]]:
    """From the server's answer to ``GET /v1/models``: the fingerprint value for ``model`` (the canonical JSON of
    its entry's stable fields, or :data:`NOT_REPORTED`) and the record for ``load_info`` (the whole entry)."""
    entries = answer.get("data")
    if not isinstance(entries, list):
        return not_reported("GET /models gave no list of models ('data')")
    entry = next((e for e in entries if isinstance(e, dict) and e.get("id") == model), None)
    if entry is None:
        listed = [e.get("id") for e in entries if isinstance(e, dict)]
        return not_reported(f"GET /models lists no model {model!r} (it lists {listed})")
    stable = {key: value for key, value in entry.items() if key not in VOLATILE_MODEL_FIELDS}
    value = json.dumps(stable, sort_keys=True, ensure_ascii=False)
    return value, {"reported": True, "entry": entry, "fingerprinted": sorted(stable)}
