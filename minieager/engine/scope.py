"""Name scopes: which layer is running right now.

While a layer's ``call`` runs, its name is pushed here ("sequential/dense_1"), and every tape
record made meanwhile remembers it (``TapeRecord.scope``), so the tape debugger can group a
layer's ops together. With no layer running, the innermost scope ``open_scopes[-1]`` is "".
"""

open_scopes = [""]   # full scope paths, innermost last; "" is the top level (only ever mutated)


class name_scope:
    """Context manager: ops run inside are recorded under ``outer/name`` (``me.name_scope``, as TF's)."""

    __slots__ = ("_path",)

    def __init__(self, name):
        if name.endswith("/"):       # as TF: a name ending in "/" is a full path, not nested in the open scope
            self._path = name[:-1]
            return
        outer = open_scopes[-1]
        self._path = f"{outer}/{name}" if outer else name

    @property
    def name(self):
        """The full scope path with a trailing "/" ("outer/name/"), as TF's ``name_scope.name``."""
        return self._path + "/"

    def __enter__(self):
        open_scopes.append(self._path)
        return self._path + "/"        # as TF's ``with tf.name_scope("a") as scope``: "a/"

    def __exit__(self, *exc):
        open_scopes.pop()
        return False
