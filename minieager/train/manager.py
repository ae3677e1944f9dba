"""``me.train.CheckpointManager``: numbered saves in one folder, keeping only the newest few."""
import contextlib
import os

from . import _format, _state


class CheckpointManager:
    """Save ``checkpoint`` as ``<directory>/<checkpoint_name>-<n>``, deleting all but the ``max_to_keep`` newest.

    A new manager on an existing folder picks up the checkpoints listed there, so a restarted
    program goes on numbering and deleting where the last one stopped. ``max_to_keep=None`` keeps all.
    """

    def __init__(self, checkpoint, directory, max_to_keep, checkpoint_name="ckpt"):
        if max_to_keep is not None and int(max_to_keep) < 1:
            raise ValueError(f"CheckpointManager: max_to_keep must be at least 1 (or None), got {max_to_keep}.")
        self._checkpoint = checkpoint
        self.directory = directory
        self._max_to_keep = max_to_keep
        self._prefix = os.path.join(directory, checkpoint_name)
        self._checkpoints = [p for p in _state.read(directory) if os.path.exists(_format.file_of(p))]

    @property
    def checkpoints(self):
        """The paths of the kept checkpoints, oldest first."""
        return list(self._checkpoints)

    @property
    def latest_checkpoint(self):
        return self._checkpoints[-1] if self._checkpoints else None

    def save(self, checkpoint_number=None):
        """Save a new checkpoint (numbered by the checkpoint's save counter unless given); returns its path."""
        path = self._checkpoint._save_numbered(
            self._prefix, None if checkpoint_number is None else int(checkpoint_number))
        self._checkpoints = [p for p in self._checkpoints if p != path] + [path]
        if self._max_to_keep is not None:
            while len(self._checkpoints) > self._max_to_keep:
                with contextlib.suppress(FileNotFoundError):
                    os.remove(_format.file_of(self._checkpoints.pop(0)))
        _state.write(self.directory, self._checkpoints)
        return path
