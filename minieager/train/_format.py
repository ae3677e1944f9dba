"""The checkpoint file: a NumPy ``.npz`` archive (a zip of ``.npy`` files) plus ``index.json``.

The index maps each object path ("model/dense/kernel") to its array's key, shape and dtype.
Arrays are written and read with ``allow_pickle=False``, so loading a checkpoint never runs code,
and every zip member carries a CRC-32, so a truncated or damaged file is detected when it is read.
``np.load(path)`` opens the file too.
"""
import io
import json
import zipfile
import zlib

import numpy as np

from ..errors import DataLossError
from ._files import atomic_write

FORMAT, VERSION = "minieager-checkpoint", 1
EXTENSION = ".npz"
_INDEX = "index.json"


def file_of(path):
    """The file a checkpoint path names ("ckpt-1" is stored as "ckpt-1.npz")."""
    return path if path.endswith(EXTENSION) else path + EXTENSION


def write(path, arrays):
    """Atomically write ``{object path: array}`` as the checkpoint ``path``."""
    keys = {name: f"v{i}" for i, name in enumerate(arrays)}
    index = {"format": FORMAT, "version": VERSION, "variables": {
        name: {"key": keys[name], "shape": list(array.shape), "dtype": array.dtype.name}
        for name, array in arrays.items()}}

    def write_zip(f):
        with zipfile.ZipFile(f, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as archive:
            archive.writestr(_INDEX, json.dumps(index, indent=1))
            for name, array in arrays.items():
                _write_member(archive, keys[name] + ".npy", array)

    atomic_write(file_of(path), write_zip)


def _write_member(archive, member, array):
    with archive.open(member, "w", force_zip64=True) as out:
        np.lib.format.write_array(out, np.asarray(array, order="C"), allow_pickle=False)


def read(path):
    """``{object path: array}`` from the checkpoint ``path``; a damaged file raises DataLossError naming it."""
    file = file_of(path)
    try:
        with zipfile.ZipFile(file) as archive:
            index = json.loads(archive.read(_INDEX))
            if index.get("format") != FORMAT:
                raise DataLossError(f"{file} is not a minieager checkpoint (its index has no '{FORMAT}' tag).")
            return {name: _read_member(archive, file, name, entry) for name, entry in index["variables"].items()}
    except (zipfile.BadZipFile, KeyError, ValueError, EOFError, zlib.error) as err:
        raise DataLossError(f"Checkpoint file {file} is truncated or corrupted: {err}") from None


def _read_member(archive, file, name, entry):
    try:
        array = np.lib.format.read_array(io.BytesIO(archive.read(entry["key"] + ".npy")), allow_pickle=False)
    except (zipfile.BadZipFile, KeyError, ValueError, EOFError, zlib.error) as err:
        raise DataLossError(f"Checkpoint file {file}: the value of '{name}' is truncated or corrupted: {err}") from None
    if list(array.shape) != entry["shape"] or array.dtype.name != entry["dtype"]:
        raise DataLossError(f"Checkpoint file {file}: the value of '{name}' does not match its index entry "
                            f"(shape {array.shape} and dtype {array.dtype.name} in the file, the index says "
                            f"{tuple(entry['shape'])} and {entry['dtype']}).")
    return array
