"""Sealed answers: generated text of a private task kept in the run store without being readable there.

A TIND task's prompts hold decrypted sentences, and a model that restates the statement puts one into the text it
generates. Inside a git working tree ``negkit eval`` writes the samples with such fields hashed
(:mod:`negkit.io.privacy`); a hash cannot serve a resumed run, which needs the text itself to score it again. So
the run store keeps each generated answer of such a task *sealed*: encrypted with a key derived from its request
(the prompt, which holds the decrypted sentence). Whoever has the decrypted data rebuilds the requests and so the
keys: a resumed run reads its answers back and recomputes nothing, with identical results. Whoever has only the
run folder (a clone of the repository, a web crawl) has neither the prompt nor the text.

The construction uses only SHA-256: the key is ``SHA-256("negkit-sealed-answer" NUL request-JSON)`` (a different
input from the store key, which hashes the model, mode and request, so the store key does not give it away); the
text is XORed with the keystream ``SHA-256(key || nonce || counter)`` (a random 16-byte nonce per answer, so two
answers to one request never share a keystream) and carries an HMAC-SHA-256 tag (16 bytes) over the nonce and
the ciphertext, so a damaged or foreign line is an error, never a wrong answer. A stored answer is
``{"negkit_sealed": BASE64(nonce || tag || ciphertext)}``; the plain text is the answer's JSON as the store writes
it unsealed.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import os
from typing import Any, TypeGuard

from negkit.engine.requests import Request, request_payload

#: The one key of a sealed answer in the run store.
SEALED = "negkit_sealed"
_DOMAIN = b"negkit-sealed-answer\0"
_NONCE, _TAG = 16, 16


class SealError(ValueError):
    """A sealed answer that does not open with its request's key (damaged, or sealed for another request)."""


def is_sealed(stored: Any) -> TypeGuard[dict[str, str]]:
    """Whether a stored answer is sealed."""
    return isinstance(stored, dict) and set(stored) == {SEALED} and isinstance(stored[SEALED], str)


def seal(stored: Any, request: Request) -> dict[str, str]:
    """``stored`` (an answer as the store writes it: JSON-ready) sealed with ``request``'s key."""
    key = _key(request)
    nonce = os.urandom(_NONCE)
    plain = json.dumps(stored, ensure_ascii=False, sort_keys=True).encode("utf-8")
    cipher = _xor(plain, key, nonce)
    tag = hmac.new(key, nonce + cipher, hashlib.sha256).digest()[:_TAG]
    return {SEALED: base64.b64encode(nonce + tag + cipher).decode("ascii")}


def unseal(stored: dict[str, str], request: Request) -> Any:
    """The answer inside a sealed one (a :class:`SealError` when it does not open with ``request``'s key)."""
    try:
        blob = base64.b64decode(stored[SEALED].encode("ascii"), validate=True)
    except (binascii.Error, ValueError):
        raise SealError("a sealed answer that is not base64") from None
    if len(blob) < _NONCE + _TAG:
        raise SealError("a sealed answer too short to hold one")
    key = _key(request)
    nonce, tag, cipher = blob[:_NONCE], blob[_NONCE : _NONCE + _TAG], blob[_NONCE + _TAG :]
    if not hmac.compare_digest(tag, hmac.new(key, nonce + cipher, hashlib.sha256).digest()[:_TAG]):
        raise SealError("a sealed answer that does not open with its request's key")
    try:
        return json.loads(_xor(cipher, key, nonce).decode("utf-8"))
    except ValueError:
        raise SealError("a sealed answer whose content is not JSON") from None


def _key(request: Request) -> bytes:
    text = json.dumps(request_payload(request), sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(_DOMAIN + text.encode("utf-8")).digest()


def _xor(data: bytes, key: bytes, nonce: bytes) -> bytes:
    stream = bytearray()
    for counter in range((len(data) + 31) // 32):
        stream += hashlib.sha256(key + nonce + counter.to_bytes(8, "big")).digest()
    return bytes(a ^ b for a, b in zip(data, stream))
