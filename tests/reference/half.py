"""Rounding float32 to bfloat16 bits as the library does (round to nearest even; a NaN keeps its payload's top bits,
quietened). Never imports pyaclnn: callers view the uint16 result as their bfloat16 dtype."""
import numpy as np


def bf16_bits(a32):
    b = np.asarray(a32, np.float32).view(np.uint32).astype(np.uint64)
    r = ((b + 0x7fff + ((b >> 16) & 1)) >> 16).astype(np.uint16)
    nan = np.isnan(a32)
    r[nan] = ((b[nan] >> 16) | 0x40).astype(np.uint16)
    return r
