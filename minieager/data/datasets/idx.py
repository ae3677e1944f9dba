"""Read IDX files, the simple binary format MNIST is distributed in (optionally gzipped).

An IDX file starts with a magic number: two zero bytes, a type code and the number of
dimensions; then each dimension as a big-endian uint32; then the values, big-endian.
"""
import gzip
import struct

import numpy as np

from ...errors import InvalidArgumentError

_TYPES = {0x08: ">u1", 0x09: ">i1", 0x0B: ">i2", 0x0C: ">i4", 0x0D: ">f4", 0x0E: ">f8"}


def read_idx(path):
    """The array stored in the IDX file at ``path`` (``.gz`` files are decompressed)."""
    try:
        with (gzip.open if str(path).endswith(".gz") else open)(path, "rb") as f:
            data = f.read()
    except (EOFError, gzip.BadGzipFile) as err:
        raise InvalidArgumentError(f"{path} is not a valid gzip file: {err}") from None
    if len(data) < 4 or data[:2] != b"\0\0" or data[2] not in _TYPES:
        raise InvalidArgumentError(f"{path} is not an IDX file: it starts with bytes {data[:4].hex()}, "
                                   f"expected 0000 then a type code (08 for uint8) and a rank.")
    ndim, dtype = data[3], np.dtype(_TYPES[data[2]])
    header = 4 + 4 * ndim
    shape = struct.unpack(f">{ndim}I", data[4:header]) if len(data) >= header else None
    if shape is None or len(data) != header + int(np.prod(shape)) * dtype.itemsize:
        raise InvalidArgumentError(f"{path} is truncated or too long for the shape {shape} in its header.")
    return np.frombuffer(data, dtype, offset=header).reshape(shape).astype(dtype.newbyteorder("="))
