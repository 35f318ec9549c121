"""negkit's own dequantization of every common GGUF type (negkit.models.gguf_quants), checked against the gguf
package's dequantization on random blocks and on GGUF files written here, and against blocks worked out by hand."""

from __future__ import annotations

import numpy as np
import pytest
from gguf_files import QUANTIZABLE, random_blocks

from negkit.errors import NegkitError
from negkit.models.gguf_quants import GGML_TYPES, dequantize

TYPES = ["F32", "F16", "BF16", "Q4_0", "Q4_1", "Q5_0", "Q5_1", "Q8_0", "Q2_K", "Q3_K", "Q4_K", "Q5_K", "Q6_K"]
TYPE_IDS = {kind.name: kind.id for kind in GGML_TYPES.values()}


def test_every_common_type_is_known():
    assert sorted(TYPE_IDS) == sorted(TYPES)


@pytest.mark.parametrize("name", TYPES)
def test_random_blocks_equal_the_gguf_package(name):
    from gguf import GGMLQuantizationType
    from gguf.quants import dequantize as reference

    rng = np.random.default_rng(TYPES.index(name))
    raw = random_blocks(name, (5, 512), rng)
    ours = dequantize(raw, TYPE_IDS[name], (5, 512))
    theirs = reference(raw, GGMLQuantizationType[name]).astype(np.float32).reshape(5, 512)
    assert ours.dtype == np.float32 and ours.shape == (5, 512)
    np.testing.assert_array_equal(ours, theirs)


@pytest.mark.parametrize("name", TYPES)
def test_a_gguf_file_written_here_reads_back(name, tmp_path):
    """A file written by gguf.GGUFWriter (values quantized by the gguf package where it can, else random blocks)
    gives, through negkit's reader, what the gguf package decodes the same bytes to."""
    from gguf import GGMLQuantizationType, GGUFReader, GGUFWriter
    from gguf.quants import dequantize as reference
    from gguf.quants import quantize

    from negkit.models.gguf_arch import open_gguf

    rng = np.random.default_rng(100 + TYPES.index(name))
    values = rng.standard_normal((4, 256)).astype(np.float32)
    kind = GGMLQuantizationType[name]
    raw = quantize(values, kind) if name in QUANTIZABLE else random_blocks(name, (4, 256), rng)
    path = tmp_path / f"{name}.gguf"
    writer = GGUFWriter(str(path), "llama")
    writer.add_tensor("blk.0.ffn_up.weight", raw, raw_dtype=kind)
    writer.add_tensor("token_embd.weight", np.zeros((8, 256), dtype=np.float32))
    for write in (
        writer.write_header_to_file,
        writer.write_kv_data_to_file,
        writer.write_tensors_to_file,
        writer.close,
    ):
        write()
    stored = next(t for t in GGUFReader(path).tensors if t.name == "blk.0.ffn_up.weight")
    ours = dequantize(stored.data, int(stored.tensor_type), (4, 256))
    expected = reference(raw, kind).astype(np.float32).reshape(4, 256)
    np.testing.assert_array_equal(ours, expected)
    if name in QUANTIZABLE:  # close to what was quantized: within the type's rounding
        step = {"F32": 0, "F16": 1e-3, "BF16": 1e-2, "Q8_0": 0.02, "Q5_0": 0.15, "Q5_1": 0.15}.get(name, 0.35)
        assert np.abs(ours - values).max() <= step * np.abs(values).max() + 1e-7
    with pytest.raises(NegkitError, match="GGUF metadata has no llama.attention.head_count"):
        open_gguf(path)  # a file without model metadata is one clear error


def _f16(value: float) -> list[int]:
    return list(np.array([value], dtype=np.float16).view(np.uint8))


def test_q5_0_block_by_hand():
    # d = 0.5; high bits: bit 0 and bit 17 set; qs[0] = 0x21 (low nibble 1, high nibble 2)
    block = bytes(_f16(0.5)) + (1 | 1 << 17).to_bytes(4, "little") + bytes([0x21] + [0] * 15)
    out = dequantize(np.frombuffer(block, dtype=np.uint8), TYPE_IDS["Q5_0"], (32,))
    assert out[0] == 0.5 * (1 + 16 - 16)  # low nibble 1, fifth bit set
    assert out[16] == 0.5 * (2 - 16)  # high nibble 2 of byte 0 is weight 16; bit 16 clear
    assert out[17] == 0.5 * (0 + 16 - 16)  # bit 17 set
    assert out[1] == 0.5 * -16


def test_q4_1_block_by_hand():
    block = bytes(_f16(2.0) + _f16(-1.0)) + bytes([0xF3] + [0] * 15)
    out = dequantize(np.frombuffer(block, dtype=np.uint8), TYPE_IDS["Q4_1"], (32,))
    assert (out[0], out[16], out[1]) == (2.0 * 3 - 1.0, 2.0 * 15 - 1.0, -1.0)


def test_q4_k_block_by_hand():
    scales = [0] * 12
    scales[0], scales[4] = 3, 2  # sub-block 0: scale 3, min 2
    scales[1] = 0b0100_0000  # sub-block 1: scale 0 (low 6 bits); top bits 01: sub-block 5's scale gets 16
    scales[9] = 0x21  # sub-block 5: scale 1 + 16 = 17, min 2
    qs = [0] * 128
    qs[0] = 0x75  # weight 0 (sub-block 0): 5; weight 32 (sub-block 1): 7
    qs[64] = 0x30  # weight 160 (sub-block 5: high nibbles of bytes 64-95): 3
    block = bytes(_f16(1.0) + _f16(0.5) + scales + qs)
    out = dequantize(np.frombuffer(block, dtype=np.uint8), TYPE_IDS["Q4_K"], (256,))
    assert out[0] == 1.0 * 3 * 5 - 0.5 * 2
    assert out[32] == 0.0
    assert out[160] == 1.0 * 17 * 3 - 0.5 * 2
    assert out[128] == 0.0  # sub-block 4: scale and min 0


def test_q6_k_block_by_hand():
    ql, qh, scales = [0] * 128, [0] * 64, [0] * 16
    ql[0] = 0x54  # weight 0: low nibble 4; weight 64: high nibble 5
    qh[0] = 0b00_01_00_10  # weight 0: top bits 2; weight 32: 0; weight 64: 1
    scales[0], scales[2], scales[4] = 1, -1 & 0xFF, 3
    block = bytes(ql + qh + scales + _f16(2.0))
    out = dequantize(np.frombuffer(block, dtype=np.uint8), TYPE_IDS["Q6_K"], (256,))
    assert out[0] == 2.0 * 1 * ((4 | 2 << 4) - 32)
    assert out[32] == 2.0 * -1 * (0 - 32)
    assert out[64] == 2.0 * 3 * ((5 | 1 << 4) - 32)


def test_q3_k_block_by_hand():
    hmask, qs, packed = [0] * 32, [0] * 64, [0] * 12
    packed[0], packed[8] = 0x01, 0x02  # scale 0: low 4 bits 1, high 2 bits 2 -> 33 - 32 = 1
    packed[1], packed[9] = 0x50, 0x20  # scale 9: low bits in byte 1's high nibble (5), high bits 2 -> 37 - 32 = 5
    qs[0], hmask[0] = 0b11, 0b1  # weight 0: 3, high bit set -> 3
    qs[48], hmask[16] = 0b10, 0b1_0000  # weight 144 (half 1, l = 16): 2, high bit (bit 4) set -> 2
    block = bytes(hmask + qs + packed + _f16(1.0))
    out = dequantize(np.frombuffer(block, dtype=np.uint8), TYPE_IDS["Q3_K"], (256,))
    assert out[0] == 1 * 3
    assert out[1] == 1 * -4  # high bit clear: 0 - 4
    assert out[144] == 5 * 2


def test_q2_k_block_by_hand():
    scales = [0] * 16
    scales[0], scales[1] = 0x23, 0x01  # weights 0-15: scale 3, min 2; weights 16-31: scale 1, min 0
    qs = [0] * 64
    qs[0] = 0b11_10_01_10  # weight 0: 2 (bits 0-1); weight 32: 1; weight 64: 2; weight 96: 3
    qs[16] = 0b01  # weight 16: 1
    block = bytes(scales + qs + _f16(1.0) + _f16(0.5))
    out = dequantize(np.frombuffer(block, dtype=np.uint8), TYPE_IDS["Q2_K"], (256,))
    assert out[0] == 3 * 2 - 0.5 * 2
    assert out[16] == 1 * 1
    assert out[1] == -0.5 * 2


def test_unknown_type_and_wrong_size_are_clear_errors():
    with pytest.raises(NegkitError, match="GGUF tensor type 9 is not supported"):
        dequantize(np.zeros(40, dtype=np.uint8), 9, (32,))
    with pytest.raises(NegkitError, match="Q8_0 tensor of shape \\(64,\\) takes 68 bytes, the file holds 34"):
        dequantize(np.zeros(34, dtype=np.uint8), TYPE_IDS["Q8_0"], (64,))
