"""Crash-safe file writing: write a temporary file beside the target, fsync it, then rename it into place.

``os.replace`` is atomic, so a reader (or a restarted program) sees either the old file or the new
one, never a half-written file, even if the process is killed in the middle of a save.
"""
import contextlib
import os
import tempfile


def atomic_write(path, write):
    """Call ``write(f)`` on a new binary file and move it to ``path`` once it is safely on disk."""
    folder = os.path.dirname(path) or "."
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{os.path.basename(path)}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.remove(tmp)
        raise
    _fsync_folder(folder)


def _fsync_folder(folder):
    """Make the rename itself durable (not possible on every OS, hence best effort)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
