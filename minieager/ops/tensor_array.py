"""``me.TensorArray``: a list of same-dtype, same-shape tensors written one index at a time, as TF's.

    ta = me.TensorArray(me.float32, size=0, dynamic_size=True)
    for i in range(3):
        ta = ta.write(i, x * i)
    ta.stack()                       # shape (3,) + x.shape

In eager execution it is a Python list of tensors: ``write`` keeps the tensor itself, so a tape sees
the ops that made it, and ``stack`` / ``concat`` / ``gather`` are ``me.stack`` / ``me.concat`` of the
elements, whose gradients flow back to them. Inside ``me.function`` it works the same with Python int
indices (a Python loop, unrolled as the trace runs). TF's rules are kept: an index beyond ``size`` is
an error unless ``dynamic_size``; one dtype and one element shape; with ``clear_after_read`` (the
default) an element may be read once, and stacking afterwards sees zeros there, as in TF.
"""
from ..engine import dtypes
from ..errors import InvalidArgumentError, OperatorNotAllowedInGraphError, OutOfRangeError
from .creation import convert_to_tensor, zeros
from .shape import concat, stack, unstack

_CLEARED = object()   # an element read once with clear_after_read


class TensorArray:
    """TF's ``tf.TensorArray(dtype, size, dynamic_size, clear_after_read, element_shape)``."""

    def __init__(self, dtype, size=None, dynamic_size=None, clear_after_read=None, tensor_array_name=None,
                 handle=None, flow=None, infer_shape=True, element_shape=None, colocate_with_first_write_call=True,
                 name=None):
        self._dtype = dtypes.as_dtype(dtype)
        n = 0 if size is None else self._index(size, "size")
        self._elements = [None] * n
        self._dynamic = bool(dynamic_size)
        self._clear_after_read = True if clear_after_read is None else bool(clear_after_read)
        self._element_shape = None if element_shape is None else tuple(int(d) for d in element_shape)

    @property
    def dtype(self):
        return self._dtype

    @property
    def element_shape(self):
        return self._element_shape

    @property
    def dynamic_size(self):
        return self._dynamic

    def size(self, name=None):
        """The number of elements, as an int32 scalar tensor."""
        return convert_to_tensor(len(self._elements), dtype=dtypes.int32)

    # ---- writing --------------------------------------------------------------------------------
    def write(self, index, value, name=None):
        """Put ``value`` at ``index``; returns the TensorArray (write ``ta = ta.write(i, v)``, as in TF)."""
        i = self._index(index, "write")
        value = self._checked(value, f"write to index {i}")
        if i >= len(self._elements):
            if not self._dynamic:
                raise OutOfRangeError(
                    f"TensorArray.write: index {i} is beyond the array's size {len(self._elements)}, and the array "
                    f"is not resizeable. Make it with dynamic_size=True, or a larger size=.")
            self._elements.extend([None] * (i + 1 - len(self._elements)))
        self._elements[i] = value       # writing an index again replaces it, as TF's eager TensorArray
        return self

    def unstack(self, value, name=None):
        """Write the rows of ``value`` (split along its first axis) to indices 0, 1, ..."""
        value = convert_to_tensor(value, dtype=self._dtype)
        if value.ndim == 0:
            raise InvalidArgumentError("TensorArray.unstack: the value must have a first axis to split, got a scalar.")
        for i, row in enumerate(unstack(value, axis=0)):
            self.write(i, row)
        return self

    def scatter(self, indices, value, name=None):
        """Write row k of ``value`` at ``indices[k]``."""
        value = convert_to_tensor(value, dtype=self._dtype)
        rows = unstack(value, axis=0) if value.ndim else []
        indices = [self._index(i, "scatter") for i in convert_to_tensor(indices, dtype=dtypes.int32).numpy().ravel()]
        if len(indices) != len(rows):
            raise InvalidArgumentError(
                f"TensorArray.scatter: {len(indices)} indices for a value with {len(rows)} rows.")
        for i, row in zip(indices, rows):
            self.write(i, row)
        return self

    # ---- reading --------------------------------------------------------------------------------
    def read(self, index, name=None):
        """The element at ``index`` (zeros if it was never written and the element shape is known)."""
        i = self._index(index, "read")
        if i >= len(self._elements):
            raise OutOfRangeError(f"TensorArray.read: index {i} is beyond the array's size {len(self._elements)}.")
        element = self._elements[i]
        if element is _CLEARED:
            raise InvalidArgumentError(
                f"TensorArray.read: could not read index {i} twice because it was cleared after a previous read "
                f"(make the array with clear_after_read=False to read an element several times).")
        if element is None:
            return self._zeros(f"read index {i}")
        if self._clear_after_read:
            self._elements[i] = _CLEARED
        return element

    def gather(self, indices, name=None):
        """The elements at ``indices``, stacked."""
        picked = [self.read(int(i)) for i in convert_to_tensor(indices, dtype=dtypes.int32).numpy().ravel()]
        return stack(picked) if picked else self._empty()

    def stack(self, name=None):
        """All the elements stacked along a new first axis: shape (size,) + element shape."""
        parts = self._all("stack")
        return stack(parts) if parts else self._empty()

    def concat(self, name=None):
        """All the elements joined along their first axis."""
        parts = self._all("concat")
        if not parts:
            return self._empty()
        if parts[0].ndim == 0:
            raise InvalidArgumentError("TensorArray.concat: the elements are scalars; use stack() instead.")
        return concat(parts, axis=0)

    def close(self, name=None):
        """Accepted as in TF; nothing to free."""

    # ---- helpers --------------------------------------------------------------------------------
    def _all(self, what):
        return [self._zeros(what) if e is None or e is _CLEARED else e for e in self._elements]

    def _zeros(self, what):
        if self._element_shape is None:
            raise InvalidArgumentError(
                f"TensorArray.{what}: the element was never written and the element shape is unknown. Write it "
                f"first, or give element_shape= when making the array.")
        return zeros(self._element_shape, self._dtype)

    def _empty(self):
        return zeros((0,) + (self._element_shape or ()), self._dtype)

    def _checked(self, value, what):
        value = convert_to_tensor(value, dtype=self._dtype) if not hasattr(value, "_dtype") else value
        if value.dtype is not self._dtype:
            raise InvalidArgumentError(
                f"TensorArray.{what}: the TensorArray's dtype is {self._dtype.name} but the value is "
                f"{value.dtype.name}. Cast it: me.cast(value, me.{self._dtype.name}).")
        shape = tuple(value.shape)
        if self._element_shape is None:
            self._element_shape = shape            # the first write fixes the element shape (infer_shape)
        elif shape != self._element_shape:
            raise InvalidArgumentError(
                f"TensorArray.{what}: the value has shape {shape}, but the elements have shape "
                f"{self._element_shape}.")
        return value

    @staticmethod
    def _index(index, what):
        try:
            i = int(index)
        except OperatorNotAllowedInGraphError:
            raise InvalidArgumentError(
                f"TensorArray.{what}: inside me.function the index must be a Python int (loop with Python's "
                f"range, which the trace unrolls), not a tensor computed by the function.") from None
        if i < 0:
            raise OutOfRangeError(f"TensorArray.{what}: negative indices ({i}) are not allowed.")
        return i

    def __repr__(self):
        return f"<me.TensorArray: size={len(self._elements)}, dtype={self._dtype.name}>"
