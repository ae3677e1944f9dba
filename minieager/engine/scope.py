"""Name scopes: which layer is running right now.

While a layer's ``call`` runs, its name is pushed here ("sequential/dense_1"), and every tape
record made meanwhile remembers it (``TapeRecord.scope``), so the tape debugger can group a
layer's ops together. With no layer running, ``current_scope()`` is "".
"""

_stack = [""]     # full scope paths, innermost last; "" is the top level


def current_scope():
    """The full path of the innermost open scope, e.g. "mnist_model/dense_1" ("" at top level)."""
    return _stack[-1]


class name_scope:
    """Context manager: ops run inside are recorded under ``outer/name``."""

    __slots__ = ("_path",)

    def __init__(self, name):
        outer = _stack[-1]
        self._path = f"{outer}/{name}" if outer else name

    def __enter__(self):
        _stack.append(self._path)
        return self._path

    def __exit__(self, *exc):
        _stack.pop()
        return False
