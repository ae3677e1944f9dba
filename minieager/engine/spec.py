"""``me.TensorSpec``: the shape and dtype a tensor must have, without a value.

``me.function(input_signature=[...])`` checks arguments against specs, ``map_fn`` and ``py_function``
take one to say what their function returns, and ``Dataset.from_generator`` what it yields.
"""
from . import dtypes


class TensorSpec:
    """The shape and dtype a tensor argument must have: ``me.TensorSpec([None, 3], me.float32)``.
    ``None`` for a dimension accepts any size: me.function traces once, with that dimension unknown."""

    def __init__(self, shape, dtype=dtypes.float32, name=None):
        self.shape = None if shape is None else tuple(None if d is None else int(d) for d in shape)
        self.dtype = dtypes.as_dtype(dtype)
        self.name = name

    def is_compatible_with(self, t):
        if t.dtype is not self.dtype:
            return False
        if self.shape is None:
            return True
        return len(t.shape) == len(self.shape) and all(s is None or s == d for s, d in zip(self.shape, t.shape))

    def __eq__(self, other):
        return isinstance(other, TensorSpec) and (self.shape, self.dtype, self.name) == (other.shape, other.dtype,
                                                                                         other.name)

    def __hash__(self):
        return hash((self.shape, self.dtype, self.name))

    def __repr__(self):
        return f"TensorSpec(shape={self.shape}, dtype=me.{self.dtype.name}, name={self.name!r})"
