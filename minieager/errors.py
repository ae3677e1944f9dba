"""The exception hierarchy, modelled on TensorFlow's ``tf.errors``.

Each error subclasses the Python built-in a learner would expect, so
``except ValueError`` still catches a bad shape.
"""


class MinieagerError(Exception):
    """Base class of every error minieager raises on purpose."""


class InvalidArgumentError(MinieagerError, ValueError):
    """An op got an argument it cannot work with (bad shape, axis, value)."""


class DTypeError(InvalidArgumentError, TypeError):
    """An op got a tensor of a dtype it does not take (a float where it needs ints, a bool to add).

    Both an InvalidArgumentError (so ``except ValueError`` catches it, as before) and a TypeError
    (what TensorFlow raises for a dtype an op does not accept).
    """


class NotFoundError(MinieagerError, LookupError):
    """Something that was asked for does not exist (a file, a device, a checkpoint)."""


class UnimplementedError(MinieagerError, NotImplementedError):
    """The op exists but not for this device or dtype."""


class FailedPreconditionError(MinieagerError, RuntimeError):
    """The call is valid, but not in the current state (e.g. a used non-persistent tape)."""


class InternalError(MinieagerError, RuntimeError):
    """A bug in minieager itself. Please report it."""


class DataLossError(MinieagerError, OSError):
    """A file is truncated or corrupted (e.g. a damaged checkpoint)."""


class OperatorNotAllowedInGraphError(MinieagerError, TypeError):
    """A Python operation that needs a tensor's value (``if t:``, ``t.numpy()``) was used on a
    symbolic tensor while ``me.function`` traced a function (see minieager/graph)."""


class OutOfRangeError(MinieagerError, IndexError):
    """An iterator has no more elements (TF's ``tf.errors.OutOfRangeError``, "End of sequence")."""


class ResourceExhaustedError(MinieagerError, MemoryError):
    """An op's result does not fit in memory (TF's ``tf.errors.ResourceExhaustedError``, "OOM")."""


def out_of_memory(op_name, err):
    """The error for an op whose result NumPy (or the GPU) could not allocate: it names the op."""
    return ResourceExhaustedError(
        f"{op_name}: not enough memory for the result ({err}). Check the shape and sizes you passed: a size "
        f"such as 2**40 asks for terabytes.")
