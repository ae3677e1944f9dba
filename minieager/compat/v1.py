"""``import minieager.compat.v1 as tf``: TensorFlow 1's names, as ``import tensorflow.compat.v1 as tf``.

The graph-building names (``Session``, ``placeholder``, ``py_func`` ...) come from
``minieager/graph/compat/v1.py``; any other name is minieager's own (``tf.constant`` is ``me.constant``),
so TF 1 code that only changes its import runs. A name neither has raises the usual hint.
The package ``minieager`` sits above this module, so it hands itself over (``_fallback``) once it is
imported, as it installs ``GradientTape.debugger``.
"""
from ..graph.compat import v1 as _graph_v1

_fallback = None     # the minieager package, set by minieager/__init__.py


def __getattr__(name):
    if not name.startswith("_"):
        for source in (_graph_v1, _fallback):
            if source is not None and hasattr(source, name):
                return getattr(source, name)
    from .._hints import missing
    raise missing(__name__, name)


def __dir__():
    names = dir(_graph_v1) + (dir(_fallback) if _fallback is not None else [])
    return sorted({n for n in names if not n.startswith("_")})
