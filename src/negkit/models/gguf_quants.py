"""negkit's own numpy dequantization of GGUF tensors (the ggml block formats), one function per type.

A GGUF tensor of a quantized type is a sequence of blocks; each block holds ``elements`` weights in ``size``
bytes: a few float16 scales (``d``, sometimes a minimum ``m`` or ``dmin``) and packed integers. The formats
(byte offsets, bit orders) are those of ggml, the library llama.cpp writes GGUF files with:

=======  ========  =====  ================================================================================
type     elements  bytes  one block
=======  ========  =====  ================================================================================
Q4_0     32        18     d; 16 bytes of 4-bit q (low nibbles: weights 0-15, high: 16-31); w = d (q - 8)
Q4_1     32        20     d, m; 16 bytes of 4-bit q as Q4_0; w = d q + m
Q5_0     32        22     d; 32 high bits (uint32, bit j: weight j); 16 bytes of low nibbles; w = d (q - 16)
Q5_1     32        24     d, m; high bits and nibbles as Q5_0; w = d q + m
Q8_0     32        34     d; 32 int8 q; w = d q
Q2_K     256       84     16 bytes of 4-bit scale | 4-bit min per 16 weights; 64 bytes of 2-bit q; d, dmin
Q3_K     256       110    32 bytes of high bits; 64 bytes of 2-bit q; 12 bytes of 16 6-bit scales; d
Q4_K     256       144    d, dmin; 12 bytes of 8 6-bit scales and mins (one per 32 weights); 128 bytes of nibbles
Q5_K     256       176    as Q4_K plus 32 bytes of high bits before the nibbles
Q6_K     256       210    128 bytes of low nibbles; 64 bytes of 2-bit high parts; 16 int8 scales; d
=======  ========  =====  ================================================================================

F32, F16 and BF16 tensors are plain arrays. Everything is computed in float32 (the scales are float16 in the
file), so the result equals the ``gguf`` package's own dequantization; tests/models/test_gguf_quants.py checks every
type against it on random blocks and a block worked out by hand.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from negkit.errors import NegkitError


@dataclass(frozen=True)
class GGMLType:
    """A ggml tensor type: its id in GGUF files, name, weights per block and bytes per block."""

    id: int
    name: str
    elements: int
    size: int
    #: (blocks, size) uint8 -> (blocks, elements) float32
    dequantize: Callable[[np.ndarray], np.ndarray]


def _f16(blocks: np.ndarray, offset: int) -> np.ndarray:
    """The float16 at byte ``offset`` of each block, as a float32 column."""
    values: np.ndarray = blocks[:, offset : offset + 2].copy().view("<f2").astype(np.float32)
    return values


def _nibbles(packed: np.ndarray) -> np.ndarray:
    """Bytes (blocks, 16) -> 4-bit values (blocks, 32): the low nibbles first, then the high ones."""
    return np.concatenate([packed & 0x0F, packed >> 4], axis=1)


def _high_bits32(blocks: np.ndarray, offset: int) -> np.ndarray:
    """The 32 bits of the little-endian uint32 at ``offset``, bit j in column j (blocks, 32)."""
    bits = np.unpackbits(blocks[:, offset : offset + 4], axis=1, bitorder="little")
    return bits.astype(np.uint8)


def _q4_0(blocks: np.ndarray) -> np.ndarray:
    q = _nibbles(blocks[:, 2:18]).astype(np.int8) - np.int8(8)
    return _f16(blocks, 0) * q.astype(np.float32)


def _q4_1(blocks: np.ndarray) -> np.ndarray:
    q = _nibbles(blocks[:, 4:20]).astype(np.float32)
    values: np.ndarray = _f16(blocks, 0) * q + _f16(blocks, 2)
    return values


def _q5_0(blocks: np.ndarray) -> np.ndarray:
    q = (_nibbles(blocks[:, 6:22]) | (_high_bits32(blocks, 2) << 4)).astype(np.int8) - np.int8(16)
    values: np.ndarray = _f16(blocks, 0) * q.astype(np.float32)
    return values


def _q5_1(blocks: np.ndarray) -> np.ndarray:
    q = (_nibbles(blocks[:, 8:24]) | (_high_bits32(blocks, 4) << 4)).astype(np.float32)
    values: np.ndarray = _f16(blocks, 0) * q + _f16(blocks, 2)
    return values


def _q8_0(blocks: np.ndarray) -> np.ndarray:
    values: np.ndarray = _f16(blocks, 0) * blocks[:, 2:34].copy().view(np.int8).astype(np.float32)
    return values


def _q2_k(blocks: np.ndarray) -> np.ndarray:
    n = len(blocks)
    scales = blocks[:, 0:16]
    d, dmin = _f16(blocks, 80), _f16(blocks, 82)
    # weight 128 h + 32 s + l: bits 2s..2s+1 of byte 32 h + l; every 16 weights have their own scale and min
    shifts = (2 * np.arange(4, dtype=np.uint8)).reshape(1, 1, 4, 1)
    q = (blocks[:, 16:80].reshape(n, 2, 1, 32) >> shifts) & 3
    q = q.reshape(n, 16, 16).astype(np.float32)
    scale = (d * (scales & 0x0F).astype(np.float32))[:, :, None]
    minimum = (dmin * (scales >> 4).astype(np.float32))[:, :, None]
    values: np.ndarray = (scale * q - minimum).reshape(n, 256)
    return values


#: Q3_K's 16 six-bit scales in 12 bytes: scale i's low 4 bits sit in byte i % 8 (shifted 4 (i // 8)), its high 2
#: bits in byte 8 + i % 4 (shifted 2 (i // 4)).
_Q3_SCALE = np.arange(16)


def _q3_k(blocks: np.ndarray) -> np.ndarray:
    n = len(blocks)
    packed = blocks[:, 96:108]
    low = (packed[:, _Q3_SCALE % 8] >> (4 * (_Q3_SCALE // 8)).astype(np.uint8)) & 0x0F
    high = (packed[:, 8 + _Q3_SCALE % 4] >> (2 * (_Q3_SCALE // 4)).astype(np.uint8)) & 3
    scales = (low | (high << 4)).astype(np.int8) - np.int8(32)
    # weight 128 h + 32 j + l: bits 2j..2j+1 of byte 32 h + l of qs, and bit 4 h + j of hmask byte l (clear: -4)
    shifts = (2 * np.arange(4, dtype=np.uint8)).reshape(1, 1, 4, 1)
    low_bits = (blocks[:, 32:96].reshape(n, 2, 1, 32) >> shifts) & 3
    mask_bit = (4 * np.arange(2, dtype=np.uint8)[:, None] + np.arange(4, dtype=np.uint8)[None, :]).reshape(1, 2, 4, 1)
    high_bit = (blocks[:, 0:32].reshape(n, 1, 1, 32) >> mask_bit) & 1
    q = low_bits.astype(np.int8) - np.int8(4) * (1 - high_bit).astype(np.int8)
    scale = _f16(blocks, 108) * scales.astype(np.float32)
    values: np.ndarray = (scale[:, :, None] * q.reshape(n, 16, 16).astype(np.float32)).reshape(n, 256)
    return values


def _k_scales_mins(packed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Q4_K/Q5_K: the 8 six-bit scales and mins in 12 bytes. Sub-blocks 0-3 keep theirs in the low 6 bits of
    bytes 0-3 (scale) and 4-7 (min); sub-blocks 4-7 in the nibbles of bytes 8-11 (low: scale, high: min) with
    their top 2 bits in the top 2 bits of bytes 0-3 (scale) and 4-7 (min)."""
    scales = np.empty((len(packed), 8), dtype=np.uint8)
    mins = np.empty((len(packed), 8), dtype=np.uint8)
    scales[:, :4] = packed[:, 0:4] & 63
    mins[:, :4] = packed[:, 4:8] & 63
    scales[:, 4:] = (packed[:, 8:12] & 0x0F) | ((packed[:, 0:4] >> 6) << 4)
    mins[:, 4:] = (packed[:, 8:12] >> 4) | ((packed[:, 4:8] >> 6) << 4)
    return scales.astype(np.float32), mins.astype(np.float32)


def _k_nibbles(packed: np.ndarray) -> np.ndarray:
    """Q4_K/Q5_K: 128 bytes -> 8 sub-blocks of 32 four-bit values: sub-block 2 c holds the low nibbles of bytes
    32 c .. 32 c + 31, sub-block 2 c + 1 their high nibbles."""
    chunks = packed.reshape(len(packed), 4, 1, 32)
    return ((chunks >> np.array([0, 4], dtype=np.uint8).reshape(1, 1, 2, 1)) & 0x0F).reshape(len(packed), 8, 32)


def _q4_k(blocks: np.ndarray) -> np.ndarray:
    n = len(blocks)
    scales, mins = _k_scales_mins(blocks[:, 4:16])
    q = _k_nibbles(blocks[:, 16:144]).astype(np.float32)
    scale = (_f16(blocks, 0) * scales)[:, :, None]
    minimum = (_f16(blocks, 2) * mins)[:, :, None]
    values: np.ndarray = (scale * q - minimum).reshape(n, 256)
    return values


def _q5_k(blocks: np.ndarray) -> np.ndarray:
    n = len(blocks)
    scales, mins = _k_scales_mins(blocks[:, 4:16])
    # sub-block j's fifth bit: bit j of byte l of the 32 high-bit bytes
    high = (blocks[:, 16:48].reshape(n, 1, 32) >> np.arange(8, dtype=np.uint8).reshape(1, 8, 1)) & 1
    q = (_k_nibbles(blocks[:, 48:176]) | (high << 4)).astype(np.float32)
    scale = (_f16(blocks, 0) * scales)[:, :, None]
    minimum = (_f16(blocks, 2) * mins)[:, :, None]
    values: np.ndarray = (scale * q - minimum).reshape(n, 256)
    return values


def _q6_k(blocks: np.ndarray) -> np.ndarray:
    n = len(blocks)
    # weight 128 h + 32 k + l (k = 2 nibble + a): nibble (low/high) of byte 64 h + 32 a + l of ql, and bits
    # 2k..2k+1 of byte 32 h + l of qh as its top two bits; every 16 weights have an int8 scale
    low: np.ndarray = blocks[:, 0:128].reshape(n, 2, 1, 2, 32) >> np.array([0, 4], dtype=np.uint8).reshape(
        1, 1, 2, 1, 1
    )
    low = (low & 0x0F).reshape(n, 2, 4, 32)
    high = (blocks[:, 128:192].reshape(n, 2, 1, 32) >> (2 * np.arange(4, dtype=np.uint8)).reshape(1, 1, 4, 1)) & 3
    q = (low | (high << 4)).astype(np.int8) - np.int8(32)
    scales = blocks[:, 192:208].copy().view(np.int8).astype(np.float32)
    scale = _f16(blocks, 208) * scales
    values: np.ndarray = (scale[:, :, None] * q.reshape(n, 16, 16).astype(np.float32)).reshape(n, 256)
    return values


def _f32(blocks: np.ndarray) -> np.ndarray:
    values: np.ndarray = blocks.copy().view("<f4")
    return values


def _f16_plain(blocks: np.ndarray) -> np.ndarray:
    values: np.ndarray = blocks.copy().view("<f2").astype(np.float32)
    return values


def _bf16(blocks: np.ndarray) -> np.ndarray:
    values: np.ndarray = (blocks.copy().view("<u2").astype(np.uint32) << 16).view(np.float32)
    return values


#: The types negkit reads, by GGUF type id.
GGML_TYPES: dict[int, GGMLType] = {
    t.id: t
    for t in (
        GGMLType(0, "F32", 1, 4, _f32),
        GGMLType(1, "F16", 1, 2, _f16_plain),
        GGMLType(2, "Q4_0", 32, 18, _q4_0),
        GGMLType(3, "Q4_1", 32, 20, _q4_1),
        GGMLType(6, "Q5_0", 32, 22, _q5_0),
        GGMLType(7, "Q5_1", 32, 24, _q5_1),
        GGMLType(8, "Q8_0", 32, 34, _q8_0),
        GGMLType(10, "Q2_K", 256, 84, _q2_k),
        GGMLType(11, "Q3_K", 256, 110, _q3_k),
        GGMLType(12, "Q4_K", 256, 144, _q4_k),
        GGMLType(13, "Q5_K", 256, 176, _q5_k),
        GGMLType(14, "Q6_K", 256, 210, _q6_k),
        GGMLType(30, "BF16", 1, 2, _bf16),
    )
}
#: The largest number of blocks dequantized at once (bounds the temporary arrays of a big tensor).
CHUNK_BLOCKS = 1 << 16


def ggml_type(type_id: int) -> GGMLType:
    """The :class:`GGMLType` of a GGUF type id; a :class:`NegkitError` naming the type for one negkit cannot read."""
    try:
        return GGML_TYPES[int(type_id)]
    except KeyError:
        known = ", ".join(t.name for t in GGML_TYPES.values())
        raise NegkitError(f"GGUF tensor type {int(type_id)} is not supported (negkit reads {known})") from None


def dequantize(raw: np.ndarray, type_id: int, shape: tuple[int, ...]) -> np.ndarray:
    """The float32 array of ``shape`` (numpy order: the last axis varies fastest) held in ``raw``, the tensor's
    bytes in the GGUF file (any dtype: it is read as bytes)."""
    kind = ggml_type(type_id)
    count = int(np.prod(shape, dtype=np.int64))
    data = np.ascontiguousarray(raw).reshape(-1).view(np.uint8)
    if count % kind.elements or data.size != count // kind.elements * kind.size:
        raise NegkitError(
            f"a {kind.name} tensor of shape {tuple(shape)} takes {count // kind.elements * kind.size} "
            f"bytes, the file holds {data.size}"
        )
    blocks = data.reshape(-1, kind.size)
    out = np.empty((len(blocks), kind.elements), dtype=np.float32)
    for start in range(0, len(blocks), CHUNK_BLOCKS):
        out[start : start + CHUNK_BLOCKS] = kind.dequantize(blocks[start : start + CHUNK_BLOCKS])
    return out.reshape(shape)
