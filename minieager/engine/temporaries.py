"""Temporary elision: an op may write its result over an operand that is about to be thrown away.

In ``me.tanh(x * w + b) * 0.5 + x`` the tensor ``x * w`` is used once, by ``+ b``, and then
dropped. So ``+ b`` can write its sums straight over it instead of into a new array. For large
arrays that matters: writing into memory that is not in cache makes the CPU first read each
line it is about to overwrite, so an op with a fresh output moves three bytes for every two an
in-place one moves. On 1e7 float32 elements this chain runs ~1.3x faster with elision. NumPy
does the same for its operators ("temporary elision"); PyTorch and TensorFlow leave it to the
user (``x.add_(b)``, buffer donation).

Which ops do it: ``+ - * // %``, ``maximum`` and ``minimum`` (as operators and as ``me.add`` ...),
and the one-input math functions (``me.tanh``, ``me.exp``, ``me.nn.relu`` ...). ``/`` and ``**``
convert their operands first (integers to floats) and always write a new array.

An operand may be overwritten only when nobody can ever see it again. Here that means:

* no GradientTape or variable watcher is open (a tape keeps the inputs it needs for backprop);
* the tensor lives on the CPU, has at least ``MIN_SIZE`` elements (below that a fresh array
  comes from cache and costs almost nothing) and the output's shape and dtype;
* its array is its own: not a view of another array, writeable, and referenced by this tensor
  alone (a view, ``t.numpy()``'s or ``np.asarray(t)``'s array would hold a reference);
* the tensor itself is referenced only by the running op and the interpreter: its reference
  count (``sys.getrefcount``) is the one a temporary has. A name (``y = x * w``), a list entry or
  an attribute adds a reference, so a tensor that is kept anywhere is never overwritten.

Counting references is exact only where the interpreter keeps one reference per use. That holds
for CPython 3.11 to 3.13 with the GIL; on other interpreters elision is off (3.14 may borrow a
local's reference without counting it, so a named tensor could look like a temporary).

Two ways in, with two counts:

* a function call, ``me.tanh(x * w + b)``: the interpreter moves its reference to the temporary
  into the callee, so the callee's argument holds the only one. Anything else that calls the
  function (``map``, ``functools.partial``, a C extension) keeps a reference of its own.
* an operator, ``(x * w) + b``: the interpreter calls ``Tensor.__add__`` through C code that
  holds the operand, so a temporary has one reference more, and so does ``y.__add__(b)`` with a
  named ``y``. The calling frame tells them apart: an operator is called from a ``BINARY_OP``
  instruction, ``y.__add__(b)`` from a call. The one case this cannot see is a NumPy array of
  dtype object that holds tensors: ``objects * 2`` calls each element's ``__mul__`` from a
  ``BINARY_OP`` with the array holding the only reference. Turn elision off for that with
  ``me.config.set_reuse_temporaries(False)``.
"""
import opcode
import sys
import sysconfig

from .device import CPU
from .recording import observing   # any thread's tapes: a tape keeps the arrays it records

MIN_SIZE = 1 << 16   # elements: 256 KiB of float32, NumPy's threshold too

SUPPORTED = (sys.implementation.name == "cpython" and (3, 11) <= sys.version_info[:2] <= (3, 13)
             and not sysconfig.get_config_var("Py_GIL_DISABLED"))
enabled = SUPPORTED     # me.config.set_reuse_temporaries() switches it

# sys.getrefcount(t) for a temporary, counted inside ``argument`` and ``operand``: the op's own
# parameter, this module's parameter and getrefcount's argument...
_FUNCTION_REFS = 3
# ... plus, for an operator, the operand that the interpreter's BINARY_OP still holds.
_OPERATOR_REFS = 4
_BINARY_OP = opcode.opmap.get("BINARY_OP")


def private_array(t):
    """``t``'s array if ``t``'s caller may overwrite it: elision is on and ``_private_array`` allows it."""
    return _private_array(t) if enabled else None


def argument(t):
    """``t``'s array if ``t`` is a temporary passed to an op function (``me.tanh(x * w)``) and
    its array may be overwritten with the op's result; else None."""
    if enabled and sys.getrefcount(t) == _FUNCTION_REFS:
        return _private_array(t)
    return None


def operand(t):
    """The same for an operand of ``+ - * // % ...``, called from the user's ``BINARY_OP``."""
    if enabled and sys.getrefcount(t) == _OPERATOR_REFS and _called_from_binary_op():
        return _private_array(t)
    return None


def _called_from_binary_op():
    """Whether the user's frame (above the op and ``operand``) is executing a BINARY_OP."""
    frame = sys._getframe(3)
    return frame.f_code.co_code[frame.f_lasti] == _BINARY_OP


def _private_array(t):
    """``t``'s array if nothing but ``t`` refers to it, it owns its memory and it is large enough
    (also how ``me.TensorArray.write`` knows it may write into its buffer, ops/tensor_array.py)."""
    if observing or t._device != CPU:
        return None
    array = t._value
    if (array.size >= MIN_SIZE and array.base is None and array.flags.writeable
            and array.flags.c_contiguous and sys.getrefcount(array) == 3):   # t, ``array``, argument
        return array
    return None
