"""``me.TensorArray``: same-dtype, same-shape tensors written one index at a time, as TF's.

    ta = me.TensorArray(me.float32, size=3)
    for i in me.range(3):            # inside me.function: a graph loop that carries ta
        ta = ta.write(i, x * me.cast(i, me.float32))
    ta.stack()                       # shape (3,) + x.shape

A TensorArray holds one tensor, its *buffer*, of shape ``(size,) + element shape``, and ops on it:
``write`` is a ``tensor_array_scatter`` op that returns a new buffer with one row replaced, ``read``
and ``gather`` are ``tensor_array_gather``, ``stack`` is the buffer itself. Eagerly the ops run at once;
in ``me.function`` they are graph nodes, and the buffer is what a ``me.while_loop`` (or an AutoGraph
``for i in me.range(n)``) carries from one iteration to the next: ``nest`` flattens a TensorArray to
its buffer and builds it again around the loop's output. So eager and traced code run the same ops,
with the same checks (an index past the end, a negative index) and the same gradient rules.

Like TF's arrays, a TensorArray is a value: ``write`` returns a new one (write ``ta = ta.write(i, v)``),
and using the old one afterwards is an error rather than a silent read of the old contents (as is, in a
loop body or branch that is traced once, a write whose result is never used: ``unused_writes``). So eagerly,
with no tape open, a write may change a large buffer in place when nothing else holds it (a ``stack()``
result does: then it copies), as TF writes a TensorList that only it holds: a loop of n writes then
costs n element copies, not n buffer copies (engine/temporaries.py says how "nothing else" is known).
The element shape comes from ``element_shape=`` or the first write; the buffer is made then (zeros:
an element never written reads as zeros, as in TF). An array whose first write happens inside a graph
loop learns its element shape from a trial trace of the loop's body (control_flow.while_loop).

Where TF's eager arrays and its ``tf.function`` arrays disagree, minieager does what ``tf.function``
does, eagerly too, so that both agree: a read never clears its element (``clear_after_read`` is
accepted and changes nothing).
"""
import math
import sys
import weakref

import numpy as np

from ..engine import dtypes, temporaries
from ..engine.abstract import AbstractArray
from ..engine.device import to_host
from ..engine.op import Op
from ..engine.recording import tracer
from ..engine.tensor import Tensor
from ..errors import DTypeError, InvalidArgumentError, OutOfRangeError
from .creation import convert_to_tensor, zeros
from .shape import reshape, shape as shape_of


def _symbolic(t):
    return getattr(t, "_tracer", None) is not None


# ---- the ops -----------------------------------------------------------------------------------------
# The checks run before the kernels, on the arrays of the inputs' device: they read values with to_host.
def _check_zeros(size, element_shape, dtype, rows):
    if int(to_host(size)) < 0:
        raise InvalidArgumentError(f"TensorArray: size must be 0 or more, got {int(to_host(size))}.")


def _check_scatter(buffer, indices, values, dynamic, what):
    indices = to_host(indices)
    if not indices.size:
        return
    low, high = (int(indices.min()), int(indices.max())) if indices.ndim else (int(indices),) * 2
    rows = buffer.shape[0]
    if low < 0:
        raise OutOfRangeError(f"TensorArray.{what}: negative indices ({low}) are not allowed.")
    if high >= rows and not dynamic:
        raise OutOfRangeError(
            f"TensorArray.{what}: index {high} is beyond the array's size {rows}, and the array is not "
            f"resizeable. Make it with dynamic_size=True, or a larger size=.")
    if indices.ndim and values.shape[0] != indices.size:
        raise InvalidArgumentError(f"TensorArray.{what}: {indices.size} indices for a value with {values.shape[0]} "
                                   f"rows.")
    element, known = values.shape[indices.ndim:], buffer.shape[1:]
    if element != known and math.prod(known):     # (a buffer of no numbers is replaced: _new_buffer)
        raise InvalidArgumentError(f"TensorArray.{what}: the value has shape {_text(element)}, but the elements "
                                   f"have shape {_text(known)}.")
    if indices.ndim and len(np.unique(indices)) != indices.size:
        raise InvalidArgumentError(f"TensorArray.{what}: each index may be written once per scatter, got "
                                   f"{indices.tolist()}.")


def _check_gather(buffer, indices, what):
    indices = to_host(indices)
    if not indices.size:
        return
    low, high, rows = int(indices.min()), int(indices.max()), buffer.shape[0]
    if low < 0:
        raise OutOfRangeError(f"TensorArray.{what}: negative indices ({low}) are not allowed.")
    if high >= rows:
        raise OutOfRangeError(f"TensorArray.{what}: index {high} is beyond the array's size {rows}.")


def _check_unstack(value, size, dynamic):
    if not dynamic and value.shape[0] > int(to_host(size)):
        raise InvalidArgumentError(
            f"TensorArray.unstack: cannot unstack {value.shape[0]} rows into an array of size {int(to_host(size))} "
            f"that is not resizeable. Make it with dynamic_size=True, or a larger size=.")


def _rows_rule(buffer, indices, values, dynamic, what):
    """A scatter keeps the buffer's shape; a resizeable array's number of rows is known when it runs."""
    return AbstractArray((None if dynamic else buffer.shape[0],) + buffer.shape[1:], buffer.dtype)


_zeros = Op("tensor_array_zeros", ("size",), "zeros((size,) + element_shape)",
            shape_rule=lambda size, element_shape, dtype, rows: AbstractArray((rows,) + element_shape,
                                                                                dtype.np_dtype),
            check=_check_zeros)
_gather = Op("tensor_array_gather", ("buffer", "indices"), "buffer[indices]",
             ("dy added at the rows read", None),
             vjp=lambda dy, buffer, indices, out, what: (_gather_grad(dy, buffer, indices), None),
             shape_rule=lambda buffer, indices, what: AbstractArray(indices.shape + buffer.shape[1:], buffer.dtype),
             check=_check_gather)
_gather_grad = Op("tensor_array_gather_grad", ("dy", "like", "indices"),
                  "zeros of like's rows with dy added at indices", ("ddy[indices]", None, None),
                  vjp=lambda ddy, dy, like, indices, out: (_gather(ddy, indices, what="gather"), None, None),
                  shape_rule=lambda dy, like, indices: AbstractArray(like.shape[:1] + dy.shape[indices.ndim:],
                                                                     dy.dtype))
_scatter_grad = Op("tensor_array_scatter_grad", ("dy", "like", "indices"),
                   "dy cut or padded to like's rows, zero at indices (zeros if like holds no numbers)",
                   ("the same, cut or padded back to dy's rows", None, None),
                   vjp=lambda g, dy, like, indices, out: (_scatter_grad(g, dy, indices), None, None),
                   shape_rule=lambda dy, like, indices: AbstractArray(like.shape, dy.dtype))
_scatter = Op("tensor_array_scatter", ("buffer", "indices", "values"), "buffer with buffer[indices] = values",
              ("dy, zero at indices", None, "dy[indices]"),
              vjp=lambda dy, buffer, indices, values, out, dynamic, what: (
                  _scatter_grad(dy, buffer, indices), None, _gather(dy, indices, what="write")),
              shape_rule=_rows_rule, check=_check_scatter)
_unstack = Op("tensor_array_unstack", ("value", "size"), "value (its rows become the elements)", ("dy", None),
              vjp=lambda dy, value, size, out, dynamic: (dy, None),
              shape_rule=lambda value, size, dynamic: AbstractArray(
                  (None if dynamic else value.shape[0],) + value.shape[1:], value.dtype),
              check=_check_unstack)


# ---- the TensorArray -------------------------------------------------------------------------------
class TensorArray:
    """TF's ``tf.TensorArray(dtype, size, dynamic_size, clear_after_read, element_shape)``."""

    def __init__(self, dtype, size=None, dynamic_size=None, clear_after_read=None, tensor_array_name=None,
                 handle=None, flow=None, infer_shape=True, element_shape=None, colocate_with_first_write_call=True,
                 name=None):
        self._dtype = dtypes.as_dtype(dtype)
        if size is None:
            raise InvalidArgumentError("TensorArray: size must be given (size=0 with dynamic_size=True for an "
                                       "array that grows), as in TF.")
        self._size = _size(size)                  # a Python int or an int32 scalar tensor
        self._dynamic = bool(dynamic_size)
        self._shape = [_element_shape(element_shape)]    # one list, shared by every array written from this one
        self._buffer = None                       # made by the first write, or when the element shape is known
        self._made_in = tracer()
        self._replaced = self._used = False

    def _derived(self, buffer):
        """The array after a write: the same settings and shared element shape, a new buffer."""
        new = object.__new__(TensorArray)
        new.__dict__.update(self.__dict__)
        new._buffer, new._made_in, new._replaced, new._used = buffer, tracer(), False, False
        return new

    def _replaced_by(self, buffer):
        current = tracer()
        if self._made_in is current:
            self._replaced = True       # (an array of an enclosing trace stays usable: a branch may use it)
        new = self._derived(buffer)
        if getattr(current, "parent", None) is not None:      # a loop body or a branch: see unused_writes
            _written_in.setdefault(current, []).append(new)
        return new

    # ---- what nest, me.while_loop and me.cond see: the buffer ---------------------------------------
    def _components(self):
        self._used = True
        buffer = self._buffer_or_new()
        return [] if buffer is None else [buffer]

    def _component_count(self):
        return 0 if self._buffer is None and self._shape[0] is None else 1

    def _from_components(self, components):
        return self._derived(components[0] if components else None)

    @property
    def _shape_unknown(self):
        return self._buffer is None and not _known(self._shape[0])

    # ---- properties ---------------------------------------------------------------------------------
    @property
    def dtype(self):
        return self._dtype

    @property
    def element_shape(self):
        return self._shape[0]

    @property
    def dynamic_size(self):
        return self._dynamic

    def size(self, name=None):
        """The number of elements, as an int32 scalar tensor."""
        self._check_current("size")
        if self._buffer is None:
            return convert_to_tensor(self._size, dtype=dtypes.int32)
        rows = self._buffer.shape[0]
        return shape_of(self._buffer, out_type=dtypes.int32)[0] if rows is None else convert_to_tensor(rows)

    # ---- writing ------------------------------------------------------------------------------------
    def write(self, index, value, name=None):
        """A new TensorArray with ``value`` at ``index`` (write ``ta = ta.write(i, v)``, as in TF)."""
        self._check_current("write")
        index = self._indices(index, "write", scalar=True)
        value = self._checked(value, "write")
        # (2 references: this array's and getrefcount's argument; the array this one replaces is never used again)
        if tracer() is None and self._buffer is not None and sys.getrefcount(self._buffer) == 2:
            into = temporaries.private_array(self._buffer)
            if into is not None and int(index) < into.shape[0] and value.shape == into.shape[1:]:
                return self._replaced_by(_scatter(self._buffer, index, value, dynamic=self._dynamic, what="write",
                                                  into=into))
        return self._replaced_by(_scatter(self._buffer_or_new(), index, value, dynamic=self._dynamic, what="write"))

    def scatter(self, indices, value, name=None):
        """A new TensorArray with row k of ``value`` at ``indices[k]``."""
        self._check_current("scatter")
        indices = self._indices(indices, "scatter", scalar=False)
        value = self._checked(value, "scatter", rows=True)
        if indices.shape[0] is not None and value.shape[0] is not None and indices.shape[0] != value.shape[0]:
            raise InvalidArgumentError(
                f"TensorArray.scatter: {indices.shape[0]} indices for a value with {value.shape[0]} rows.")
        buffer = self._buffer_or_new()
        return self._replaced_by(_scatter(buffer, indices, value, dynamic=self._dynamic, what="scatter"))

    def unstack(self, value, name=None):
        """A new TensorArray whose elements are the rows of ``value`` (its size: their number, as TF's eager arrays)."""
        self._check_current("unstack")
        value = self._checked(value, "unstack", rows=True)
        size = convert_to_tensor(self._size, dtype=dtypes.int32)
        return self._replaced_by(_unstack(value, size, dynamic=self._dynamic))

    # ---- reading ------------------------------------------------------------------------------------
    def read(self, index, name=None):
        """The element at ``index`` (zeros if it was never written)."""
        self._check_current("read")
        index = self._indices(index, "read", scalar=True)
        return _gather(self._buffer_to_read("read"), index, what="read")

    def gather(self, indices, name=None):
        """The elements at ``indices``, stacked."""
        self._check_current("gather")
        indices = self._indices(indices, "gather", scalar=False)
        return _gather(self._buffer_to_read("gather"), indices, what="gather")

    def stack(self, name=None):
        """All the elements stacked along a new first axis: shape (size,) + element shape."""
        self._check_current("stack")
        if self._buffer is None and self._shape[0] is None and isinstance(self._size, int) and self._size == 0:
            return zeros((0,), self._dtype)      # (TF's eager arrays: an empty array of unknown shape stacks to (0,))
        return self._buffer_to_read("stack")

    def concat(self, name=None):
        """All the elements joined along their first axis."""
        self._check_current("concat")
        buffer = self._buffer_to_read("concat")
        if buffer.ndim == 1:
            raise InvalidArgumentError("TensorArray.concat: the elements are scalars; use stack() instead.")
        return reshape(buffer, (-1,) + tuple(buffer.shape[2:]))

    def close(self, name=None):
        """Accepted as in TF; nothing to free."""

    # ---- helpers ------------------------------------------------------------------------------------
    def _check_current(self, what):
        self._used = True
        if self._replaced:
            raise InvalidArgumentError(
                f"TensorArray.{what}: this TensorArray was replaced by the one a write (or scatter, unstack) "
                f"returned; TensorArrays are values, as in tf.function. Keep the result: ta = ta.write(i, value).")

    def _new_buffer(self):
        """A buffer of unwritten elements, if the element shape's rank is known (else None). A dimension
        known only when the graph runs is made 0: the first write, whatever its shape, replaces a buffer
        that holds no numbers (see the tensor_array_scatter kernel)."""
        shape = self._shape[0]
        if shape is None:
            return None
        rows = None if self._dynamic or not isinstance(self._size, int) else self._size
        size = convert_to_tensor(self._size, dtype=dtypes.int32)
        return _zeros(size, element_shape=shape, dtype=self._dtype, rows=rows)

    def _buffer_or_new(self):
        """The buffer, or a new one of unwritten elements (None while the element shape is unknown)."""
        return self._buffer if self._buffer is not None else self._new_buffer()

    def _buffer_to_read(self, what):
        buffer = self._buffer_or_new()
        if buffer is None:
            raise InvalidArgumentError(
                f"TensorArray.{what}: no element was written and the element shape is unknown. Write first, or "
                f"give element_shape= when making the array.")
        return buffer

    def _checked(self, value, what, rows=False):
        """``value`` as a tensor of the array's dtype, its element shape merged into the array's."""
        if not isinstance(value, Tensor):
            try:
                value = convert_to_tensor(value, dtype=self._dtype)
            except InvalidArgumentError as err:
                raise DTypeError(f"TensorArray.{what}: {err}") from None
        if value.dtype is not self._dtype:
            raise DTypeError(
                f"TensorArray.{what}: the TensorArray's dtype is {self._dtype.name} but the value is "
                f"{value.dtype.name}. Cast it: me.cast(value, me.{self._dtype.name}).")
        shape = tuple(value.shape)
        if rows:
            if not shape:
                raise InvalidArgumentError(f"TensorArray.{what}: the value must have a first axis to split, got a "
                                           f"scalar.")
            shape = shape[1:]
        known = self._shape[0]
        if known is not None and not (len(known) == len(shape) and all(
                a is None or b is None or a == b for a, b in zip(known, shape))):
            raise InvalidArgumentError(
                f"TensorArray.{what}: the value{' rows' if rows else ''} ha{'ve' if rows else 's'} shape "
                f"{_text(shape)}, but the elements have shape {_text(known)}.")
        self._shape[0] = shape if known is None else tuple(a if a is not None else b for a, b in zip(known, shape))
        return value

    @staticmethod
    def _indices(index, what, scalar):
        if isinstance(index, (bool, np.bool_)) or isinstance(index, (float, np.floating)):
            raise DTypeError(f"TensorArray.{what}: indices must be integers, got {index!r}.")
        if isinstance(index, (int, np.integer)):
            if index < 0:
                raise OutOfRangeError(f"TensorArray.{what}: negative indices ({int(index)}) are not allowed.")
            if index < 2**31:
                index = np.int32(index)     # (converted faster than a Python int, whose dtype is looked for)
        try:
            index = convert_to_tensor(index)
        except InvalidArgumentError as err:
            raise InvalidArgumentError(f"TensorArray.{what}: indices: {err}") from None
        if not index.dtype.is_integer:
            raise DTypeError(f"TensorArray.{what}: indices must be integers, got {index.dtype.name}.")
        if scalar and index.ndim != 0:
            raise InvalidArgumentError(f"TensorArray.{what}: the index must be a scalar, got shape "
                                       f"{tuple(index.shape)}.")
        if not scalar and index.ndim != 1:
            raise InvalidArgumentError(f"TensorArray.{what}: indices must be a vector, got shape "
                                       f"{tuple(index.shape)}.")
        return index

    def __repr__(self):
        size = self._size if self._buffer is None else self._buffer.shape[0]
        return f"<me.TensorArray: size={size if isinstance(size, int) else '?'}, dtype={self._dtype.name}>"


# The arrays a write made while tracing a loop body or a branch, by tracer: each must be used there (written
# again, read, or handed out of the body), or the write is lost. Eagerly the next use of the array that write
# replaced raises; in the body's single trace that use may never come, so control_flow asks at its end.
_written_in = weakref.WeakKeyDictionary()


def unused_writes(tracer):
    """How many arrays written while ``tracer`` traced a body or branch were then never used."""
    return sum(1 for ta in _written_in.pop(tracer, ()) if not ta._used)


def _size(size):
    if isinstance(size, Tensor):
        if not size.dtype.is_integer or size.ndim != 0:
            raise DTypeError(f"TensorArray: size must be an int or an int scalar tensor, got "
                             f"{size.dtype.name}{list(size.shape)}.")
        return size if _symbolic(size) else int(size.numpy())
    if isinstance(size, (bool, np.bool_)) or not isinstance(size, (int, np.integer)):
        raise DTypeError(f"TensorArray: size must be an int or an int scalar tensor, got {size!r}.")
    if size < 0:
        raise InvalidArgumentError(f"TensorArray: size must be 0 or more, got {int(size)}.")
    return int(size)


def _element_shape(shape):
    if shape is None:
        return None
    dims = getattr(shape, "as_list", lambda: shape)()
    if dims is None:
        return None
    return tuple(None if d is None else int(d) for d in dims)


def _known(shape):
    return shape is not None and None not in shape


def _text(shape):
    return "(" + ", ".join("?" if d is None else str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"
