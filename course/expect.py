"""What the exercise tests use to fetch the learner's definitions and compare results.

A failed comparison raises ``CheckFailure`` with a message written for the learner (what was
computed, expected against got, shapes); the checker prints that message instead of a traceback.
"""
import dis

import numpy as np


class NotDone(Exception):
    """The learner has not written this part yet (a stub is still there)."""


class CheckFailure(AssertionError):
    """A learner's answer is wrong; the message says which case and how."""


class LearnerError(Exception):
    """The learner's code raised while a check called it; ``call`` says with which inputs.

    The learner's own exception is ``__cause__`` (its traceback points at the learner's line).
    """

    def __init__(self, call):
        super().__init__(call)
        self.call = call


def call(fn, *args, what=None, **kwargs):
    """``fn(*args, **kwargs)``; if the learner's code raises, the check names the call that failed.

    ``what`` is how the call is shown ("broadcast_shape((2, 3), (3,))"); by default the function's
    name with the arguments' reprs. ``NotImplementedError`` (a stub) passes through unchanged.
    """
    try:
        return fn(*args, **kwargs)
    except (NotImplementedError, NotDone, CheckFailure):
        raise
    except Exception as err:
        if what is None:
            shown = [repr(a) for a in args] + [f"{k}={v!r}" for k, v in kwargs.items()]
            what = f"{getattr(fn, '__name__', 'your function')}({', '.join(shown)})"
        raise LearnerError(what) from err


def learner(ns, name):
    """The learner's definition of ``name`` from the notebook namespace ``ns``.

    Raises NotDone when it is missing or still the ``...`` stub the learner version starts with.
    """
    if name not in ns:
        raise NotDone(f"`{name}` is not defined yet: run the cell that defines it.")
    value = ns[name]
    if value is Ellipsis:
        raise NotDone(f"`{name}` is still `...`: replace it with your answer.")
    return value


def as_array(value):
    """A NumPy array from a Tensor, Variable, array or number (None stays None)."""
    if value is None:
        return None
    if hasattr(value, "numpy"):
        value = value.numpy()
    return np.asarray(value)


def show(a):
    """An array (or tensor) as a short line for a message: a few significant digits, long ones elided."""
    return np.array2string(as_array(a), precision=4, threshold=12, edgeitems=2, suppress_small=True,
                           max_line_width=200).replace("\n", "")


_show = show


def expect_close(got, expected, what, rtol=1e-5, atol=1e-6):
    """Fail unless ``got`` has ``expected``'s shape and values (within rtol/atol)."""
    exp = as_array(expected)
    if got is None:
        raise CheckFailure(f"{what}: expected an array of shape {exp.shape}, got None (did you forget `return`?)")
    g = as_array(got)
    if g.shape != exp.shape:
        raise CheckFailure(f"{what}: expected shape {exp.shape}, got shape {g.shape}.\n"
                           f"  expected {_show(exp)}\n  got      {_show(g)}")
    if not np.allclose(g.astype(np.float64), exp.astype(np.float64), rtol=rtol, atol=atol, equal_nan=True):
        diff = np.abs(g.astype(np.float64) - exp.astype(np.float64))
        worst = np.unravel_index(np.nanargmax(diff), diff.shape) if diff.ndim else ()
        raise CheckFailure(f"{what}: values differ (largest difference {np.nanmax(diff):.3g} at index "
                           f"{tuple(int(i) for i in worst)}).\n  expected {_show(exp)}\n  got      {_show(g)}")


def expect_equal(got, expected, what):
    """Fail unless ``got == expected`` (plain Python values: shapes, dtypes, names)."""
    if got != expected:
        raise CheckFailure(f"{what}: expected {expected!r}, got {got!r}.")


def expect(condition, message):
    """Fail with ``message`` unless ``condition`` holds."""
    if not condition:
        raise CheckFailure(message)


def _references(fn, seen, depth=3):
    """(name, value) for each global name ``fn``'s code (and the notebook functions it calls) refers
    to, and (module name, None) for each module it imports inside itself."""
    code = getattr(fn, "__code__", None)
    if code is None or id(fn) in seen or depth == 0:
        return
    seen.add(id(fn))
    namespace = dict(getattr(fn, "__globals__", {}))
    for cell_name, cell in zip(code.co_freevars, fn.__closure__ or ()):
        try:
            namespace[cell_name] = cell.cell_contents
        except ValueError:        # an empty cell (a name assigned later)
            pass
    codes = [code]
    while codes:
        c = codes.pop()
        codes.extend(k for k in c.co_consts if hasattr(k, "co_names"))
        for ins in dis.get_instructions(c):
            if ins.opname == "IMPORT_NAME":
                yield ins.argval, None
            elif ins.opname in ("LOAD_GLOBAL", "LOAD_NAME", "LOAD_DEREF") and ins.argval in namespace:
                value = namespace[ins.argval]
                yield ins.argval, value
                if getattr(value, "__globals__", None) is fn.__globals__:    # a helper of the same notebook
                    yield from _references(value, seen, depth - 1)


def _root_module(name, value):
    if value is None:                    # an import inside the function
        return name.split(".")[0]
    module = value.__name__ if isinstance(value, type(np)) else getattr(value, "__module__", None) or ""
    return module.split(".")[0]


def expect_no_calls_to(fn, modules, what):
    """Fail when ``fn`` (or a function of the same notebook it calls) uses a module of ``modules``.

    ``modules`` maps a root package name to how the exercise calls it (``{"numpy": "NumPy"}``). An
    exercise that says "without calling NumPy" checks it with this: each global name the code loads
    is looked up where the function looks it up, so ``np.broadcast_shapes``, ``numpy.add``, a
    ``from numpy import ...`` name and an ``import numpy`` inside the function all count.
    """
    for name, value in _references(fn, set()):
        root = _root_module(name, value)
        if root in modules:
            raise CheckFailure(f"{what}: your code uses `{name}` ({modules[root]}); the exercise asks you to "
                               f"write it without {' or '.join(modules.values())}.")
