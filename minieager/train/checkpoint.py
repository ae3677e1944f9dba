"""``me.train.Checkpoint``: save and restore the variables of a graph of Python objects.

    checkpoint = me.train.Checkpoint(model=model, optimizer=optimizer, step=step)
    path = checkpoint.save("/tmp/training/ckpt")          # "/tmp/training/ckpt-1"
    checkpoint.restore(me.train.latest_checkpoint("/tmp/training"))

Values are matched to variables by their path in the object graph ("model/dense/kernel"), not by
variable names, so a freshly built program with the same structure restores a checkpoint. A layer
that is not built yet gets its values when it builds (delayed restoration).
"""
import os

import numpy as np

from ..autodiff.variable import Variable
from ..errors import InvalidArgumentError, NotFoundError
from ..tracking import flatten_trackables
from . import _format, _graph, _state


class Checkpoint:
    """Groups trackable objects (Variables, layers, models, optimizers, metrics) for saving and restoring."""

    def __init__(self, **objects):
        for name, value in objects.items():
            if name == "save_counter":
                raise ValueError("Checkpoint: 'save_counter' is the checkpoint's own counter; choose another name.")
            if not any(True for _ in flatten_trackables(name, value)):
                raise TypeError(
                    f"Checkpoint: {name}={type(value).__name__} cannot be saved. Pass Variables, layers, models, "
                    f"optimizers or metrics (anything with _checkpoint_dependencies()), or lists/dicts of them.")
            setattr(self, name, value)
        self._objects = objects
        self.save_counter = Variable(np.int64(0), trainable=False, name="save_counter")

    def _checkpoint_dependencies(self):
        return list(self._objects.items()) + [("save_counter", self.save_counter)]

    # ---- saving ---------------------------------------------------------------------------------
    def write(self, file_prefix):
        """Write a checkpoint at exactly ``file_prefix`` (no counter, no state file); returns the path."""
        variables, _ = _graph.walk(self)
        _format.write(file_prefix, {path: v._host() for path, v in variables.items()})
        return file_prefix

    def save(self, file_prefix):
        """Write the checkpoint ``<file_prefix>-<n>`` for the n-th save and record it as the latest."""
        path = self._save_numbered(file_prefix)
        _state.record(path)
        return path

    def _save_numbered(self, file_prefix, number=None):
        previous = self.save_counter._host()
        self.save_counter.assign(previous + 1)     # first, so the file holds its own number
        try:
            return self.write(f"{file_prefix}-{int(self.save_counter if number is None else number)}")
        except BaseException:
            self.save_counter.assign(previous)
            raise

    # ---- restoring ------------------------------------------------------------------------------
    def restore(self, save_path):
        """Restore the values saved at ``save_path`` (None restores nothing); returns a status to check."""
        if save_path is None:
            return _NothingRestored()
        file = _format.file_of(save_path)
        if not os.path.isfile(file):
            hint = (" It is a folder: use me.train.latest_checkpoint(folder) for its newest checkpoint."
                    if os.path.isdir(save_path) else "")
            raise NotFoundError(f"No checkpoint at {save_path!r} (no file {file}).{hint}")
        return RestoreStatus(self, file, _format.read(file))

    read = restore


class RestoreStatus:
    """What a restore matched. Values for variables that do not exist yet wait until their layer builds."""

    def __init__(self, root, file, values):
        self._root, self._file, self._values = root, file, values
        self._restored = set()          # checkpoint paths already assigned to a variable
        self._restore_existing()

    def _restore_existing(self, built=None):
        """Assign every value whose variable exists now. Also what a layer calls after building (``built``)."""
        variables, objects = _graph.walk(self._root)
        if self._create_slots(variables, objects):
            variables, objects = _graph.walk(self._root)
        todo = [(path, var) for path, var in variables.items() if path in self._values and path not in self._restored]
        for path, var in todo:          # check everything before changing anything
            self._check(path, var)
        for path, var in todo:
            var.assign(self._values[path])
            self._restored.add(path)
        waiting = self._restore_existing if len(self._restored) < len(self._values) else None
        for obj in objects.values():
            obj._deferred_restorer = waiting

    def _create_slots(self, variables, objects):
        """Have optimizers create the slots the checkpoint holds for existing variables; whether any did.

        An optimizer otherwise creates a variable's slots on its first update, which would be too late:
        restored values must be in place before that update uses them.
        """
        saved = {path.rsplit("/", 1)[0] for path in self._values if "/.slots/" in path}
        created = False
        for obj_path, obj in objects.items():
            if not hasattr(obj, "_slot_variables"):
                continue
            have = {id(var) for var, _, _ in obj._slot_variables()}
            needed = [var for path, var in variables.items()
                      if id(var) not in have and _graph.slots_path(obj_path, path) in saved]
            if needed:
                obj.build(needed)
                created = True
        return created

    def _check(self, path, var):
        value = self._values[path]
        if value.dtype != var.dtype.np_dtype or value.shape != tuple(var.shape):
            raise InvalidArgumentError(
                f"Checkpoint {self._file}: '{path}' was saved with shape {value.shape} and dtype {value.dtype.name}, "
                f"but the variable has shape {tuple(var.shape)} and dtype {var.dtype.name}. Is this a "
                f"checkpoint of a different model?")

    def _unmatched(self):
        """(checkpoint values with no variable, variables with no checkpoint value), as sorted paths."""
        variables, _ = _graph.walk(self._root)
        return sorted(set(self._values) - self._restored), sorted(set(variables) - set(self._values))

    def assert_consumed(self):
        """Raise AssertionError unless every value was restored and every variable got a value."""
        unused, missing = self._unmatched()
        if unused or missing:
            raise AssertionError(
                f"Checkpoint {self._file} does not match the objects exactly."
                + _listing("Values in the checkpoint that no variable took (yet)", unused)
                + _listing("Variables with no value in the checkpoint", missing)
                + ("\nLayers that are not built yet take their values when they build." if unused else ""))
        return self

    def assert_existing_objects_matched(self):
        """Raise AssertionError if a variable that exists now got no value (unused values are fine)."""
        _, missing = self._unmatched()
        if missing:
            raise AssertionError(f"Checkpoint {self._file} has no value for some existing variables."
                                 + _listing("Variables with no value in the checkpoint", missing))
        return self

    def expect_partial(self):
        """Accepted for TF compatibility: minieager never warns about a partial restore."""
        return self


class _NothingRestored:
    """The status of ``restore(None)``, e.g. when ``latest_checkpoint`` found no checkpoint yet."""

    def assert_consumed(self):
        raise AssertionError("No checkpoint was restored (restore(None): there was no checkpoint to restore).")

    assert_existing_objects_matched = assert_consumed

    def expect_partial(self):
        return self


def _listing(title, paths):
    return f"\n{title}:\n" + "\n".join(f"  {p}" for p in paths) if paths else ""


def latest_checkpoint(checkpoint_dir):
    """The path of the newest checkpoint saved in ``checkpoint_dir``, or None."""
    return _state.latest_checkpoint(checkpoint_dir)


def list_variables(save_path):
    """``[(path, shape)]`` of the values stored in a checkpoint, sorted by path."""
    return sorted((path, tuple(array.shape)) for path, array in _format.read(save_path).items())
