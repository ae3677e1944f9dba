"""The state file "checkpoint" in a checkpoint folder: which checkpoints exist, and the latest one.

It is JSON, ``{"latest": "ckpt-3", "all": ["ckpt-1", "ckpt-2", "ckpt-3"]}``, with names relative to
the folder (so the folder can be moved), and it is replaced atomically like the checkpoints themselves.
"""
import json
import os

from . import _format
from ._files import atomic_write

STATE_FILE = "checkpoint"


def read(directory):
    """The checkpoint paths listed in ``directory``'s state file, oldest first ([] if there is none)."""
    try:
        with open(os.path.join(directory, STATE_FILE)) as f:
            names = json.load(f)["all"]
    except (OSError, ValueError, KeyError, TypeError):
        return []
    return [os.path.join(directory, name) for name in names]


def write(directory, paths):
    names = [os.path.relpath(p, directory) for p in paths]
    text = json.dumps({"latest": names[-1] if names else None, "all": names}, indent=1)
    atomic_write(os.path.join(directory, STATE_FILE), lambda f: f.write(text.encode()))


def record(path):
    """Add the checkpoint ``path`` to its folder's state file as the latest one."""
    directory = os.path.dirname(path) or "."
    write(directory, [p for p in read(directory) if p != path] + [path])


def latest_checkpoint(checkpoint_dir):
    """The path of the newest checkpoint in ``checkpoint_dir``, or None if there is none."""
    paths = [p for p in read(checkpoint_dir) if os.path.exists(_format.file_of(p))]
    return paths[-1] if paths else None
