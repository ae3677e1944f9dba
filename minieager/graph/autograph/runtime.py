"""The helpers that converted code calls (``ag.if_stmt``, ``ag.while_stmt`` ...): each decides, when
the code runs, whether a statement stays Python or becomes graph control flow, exactly as TF decides:

    the condition / iterable is ...             the statement becomes
    a symbolic tensor (me.function tracing)     me.cond / me.while_loop (both branches / the body traced once)
    a tensor being iterated while tracing       me.while_loop over its first dimension
    anything else (Python value, eager tensor)  plain Python: the branch taken / the loop unrolled at trace time

Branches and loop bodies are functions of the variables they change: ``if_true_5(y) -> (y,)``.
"""
import os
import types
import weakref

import numpy as np

from ... import nest
from ...engine.recording import tracer
from ...engine.tensor import Tensor
from ...ops.creation import convert_to_tensor
from ...ops.elementwise import greater, less, logical_and, logical_not, logical_or
from ...ops.indexing import gather
from ...ops.shape import shape as shape_of
from ..control_flow import cond, while_loop
from ..symbolic import SymbolicTensor


class Undefined:
    """The value of a variable that has none yet at this point (assigned only later, or in one branch)."""

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"<undefined '{self.name}'>"

    def __getattr__(self, attr):
        raise NameError(f"'{self.name}' is used before it is given a value (AutoGraph found no assignment on "
                        f"this path).")


def maybe(local_names, name):
    """The variable ``name`` if it has a value here, else ``Undefined(name)``."""
    return local_names.get(name, Undefined(name))


def _symbolic(x):
    return isinstance(x, SymbolicTensor) and tracer() is not None


def _where(fn):
    code = fn.__code__
    return f'File "{code.co_filename}", line {code.co_firstlineno}'


def _names(fn):
    code = fn.__code__
    return code.co_varnames[:code.co_argcount]


# ---- calls --------------------------------------------------------------------------------------
_converted = weakref.WeakKeyDictionary()   # a function of the user's -> its converted copy (or itself)
_PACKAGE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))   # .../minieager


def call(fn, *args, **kwargs):
    """``fn(*args, **kwargs)``, with ``fn`` converted first if it is a Python function of the user's (not a
    lambda, not minieager's or a library's), as TF's AutoGraph converts the functions a function calls.
    A function that cannot be converted is called as it is."""
    if not isinstance(fn, types.FunctionType) or getattr(fn, "__autograph_do_not_convert__", False):
        return fn(*args, **kwargs)
    converted = _converted.get(fn)
    if converted is None:
        converted = _converted[fn] = _convert_quietly(fn)
    return converted(*args, **kwargs)


def _convert_quietly(fn):
    filename = fn.__code__.co_filename
    if fn.__name__ == "<lambda>" or filename.startswith(_PACKAGE) or "site-packages" in filename \
            or getattr(fn, "__autograph_converted__", False):
        return fn
    from . import to_graph          # (the package imports this module)
    try:
        return to_graph(fn)
    except Exception:               # no source, a generator, `nonlocal` ...: called as it is, as TF does
        return fn


# ---- and, or, not -------------------------------------------------------------------------------
def and_(a, b):
    """``a and b``: me.logical_and when ``a`` is a symbolic tensor; else Python's ``and`` (``b`` lazy)."""
    x = a()
    if _symbolic(x):
        return logical_and(x, convert_to_tensor(b(), dtype=x.dtype))
    return x and b()


def or_(a, b):
    x = a()
    if _symbolic(x):
        return logical_or(x, convert_to_tensor(b(), dtype=x.dtype))
    return x or b()


def not_(x):
    return logical_not(x) if _symbolic(x) else not x


# ---- if -----------------------------------------------------------------------------------------
def if_stmt(condition, if_true, if_false, values, returns=False):
    """``if condition:`` with branches ``if_true(*values)`` and ``if_false(*values)``, which return the
    new values of the variables they assign (or, ``returns=True``, the function's return value)."""
    if not _symbolic(condition):
        return if_true(*values) if condition else if_false(*values)
    names = ("return value",) if returns else _names(if_true)
    if condition.dtype.name != "bool":
        condition = condition != 0            # as TF: a number is true when it is not zero
    seen = {}

    def branch(fn, key):
        def traced():                         # me.cond traces the main branch first, then the else branch
            seen[key] = fn(*values)
            if key == "main":
                seen["main"] = _tensors(seen["main"])
            else:
                seen["else"] = _check_branches(names, seen, if_true, returns)
            tensors = [leaf for leaf in nest.flatten(seen[key], expand_composites=True) if isinstance(leaf, Tensor)]
            # A cond that returns nothing still runs its branches' effects (me.print ...): it returns a dummy 0.
            return tensors or [convert_to_tensor(0)]
        return traced

    tensors = iter(cond(condition, branch(if_true, "main"), branch(if_false, "else")))
    # Python values (identical in both branches, as checked) stay as they are; tensors come from the cond.
    main = seen["main"]
    return nest.pack_sequence_as(main, [next(tensors) if isinstance(leaf, Tensor) else leaf
                                        for leaf in nest.flatten(main, expand_composites=True)],
                                 expand_composites=True)


def _tensors(out):
    """Python numbers among a branch's outputs become tensors (a graph computes only tensors)."""
    leaves = [convert_to_tensor(v) if isinstance(v, (bool, int, float, np.ndarray, np.generic)) else v
              for v in nest.flatten(out)]
    return nest.pack_sequence_as(out, leaves)


def _check_branches(names, seen, fn, returns):
    """TF's checks, variable by variable: both branches give each variable a value, of the same structure,
    dtype and (minieager's graphs have static shapes) shape. Returns the else branch's outputs, with
    Python numbers made tensors of the main branch's dtype."""
    main, other = seen["main"], seen["else"]
    if returns:
        main, other = (main,), (other,)
    where = _where(fn)
    fixed = []
    for name, a, b in zip(names, main, other):
        for branch, v, w in (("else", a, b), ("main", b, a)):
            if isinstance(w, Undefined) and not isinstance(v, Undefined):
                raise ValueError(f"{where}: '{name}' must also be initialized in the {branch} branch: the "
                                 f"condition is a tensor, so both branches become a graph and each must give it a "
                                 f"value. Give '{name}' a value before the `if`, or in both branches.")
        if _structure(a) != _structure(b):
            raise TypeError(f"{where}: '{name}' must have the same nested structure in the main and else "
                            f"branches: main branch gives {_describe(a)}, else branch gives {_describe(b)}.") from None
        leaves = []
        flat_a, flat_b = nest.flatten(a, expand_composites=True), nest.flatten(b, expand_composites=True)
        if len(flat_a) != len(flat_b):      # a TensorArray written in one branch only, its element shape unknown
            raise ValueError(f"{where}: '{name}' is a TensorArray written in one branch only, and its element "
                             f"shape is not known before the `if`: give element_shape= when making it.")
        for x, y in zip(flat_a, flat_b):
            x_is, y_is = isinstance(x, Tensor), isinstance(y, Tensor)
            if not x_is and not y_is:
                if x is not y and x != y:
                    raise TypeError(f"{where}: '{name}' is {x!r} in the main branch but {y!r} in the else branch: "
                                    f"a Python value that depends on a tensor condition cannot be computed. Make "
                                    f"it a tensor in both branches.")
                leaves.append(y)
                continue
            if x is None or y is None:
                raise TypeError(f"{where}: '{name}' is None in the {'main' if x is None else 'else'} branch but a "
                                f"tensor in the other: both branches of a tensor `if` must give a tensor.")
            y = y if y_is else convert_to_tensor(y, dtype=x.dtype if x.dtype.is_floating else None)
            if x.dtype is not y.dtype:
                raise TypeError(f"{where}: '{name}' has dtype {x.dtype.name} in the main branch, but dtype "
                                f"{y.dtype.name} in the else branch. Cast one: me.cast(..., me.{x.dtype.name}).")
            if _shape(x) != _shape(y):
                raise ValueError(f"{where}: '{name}' has shape {_shape(x)} in the main branch, but shape "
                                 f"{_shape(y)} in the else branch: minieager's graphs have static shapes, so "
                                 f"both branches must give it the same shape.")
            leaves.append(y)
        fixed.append(nest.pack_sequence_as(b, leaves, expand_composites=True))
    return fixed[0] if returns else tuple(fixed)


def _shape(t):
    """A tensor's shape, also for a symbolic tensor of a finished branch trace (its node keeps it)."""
    return tuple(t._node.shape) if isinstance(t, SymbolicTensor) else tuple(t.shape)


def _structure(v):
    return nest.pack_sequence_as(v, [0] * len(nest.flatten(v))) if isinstance(v, (list, tuple, dict)) else 0


def _describe(v):
    if isinstance(v, Tensor):
        return f"a tensor {v.dtype.name}{list(_shape(v))}"
    if isinstance(v, (list, tuple)):
        return f"a {type(v).__name__} of {len(v)}"
    return repr(v)


# ---- while and for ------------------------------------------------------------------------------
def while_stmt(test, body, values):
    """``while test(*values): values = body(*values)``: a Python loop while the test gives Python values
    (unrolled at trace time); from the first time it gives a symbolic tensor, one me.while_loop."""
    while True:
        go = test(*values)
        if _symbolic(go):
            return _graph_loop(test, body, values)
        if not go:
            return values
        values = body(*values)


def for_stmt(iterable, body, values, extra_test=None):
    """``for x in iterable: values = body(x, *values)`` (``extra_test``: the loop's ``break`` flag is
    not set). A tensor being iterated while tracing, or a symbolic ``me.range``, becomes one
    me.while_loop; anything else is iterated in Python (unrolled at trace time)."""
    if isinstance(iterable, SymbolicRange) or (isinstance(iterable, Tensor) and tracer() is not None):
        return _tensor_for(iterable, body, values, extra_test)
    for item in iterable:
        if extra_test is not None:
            go = extra_test(*values)
            if _symbolic(go):
                raise NotImplementedError(
                    f"{_where(body)}: this loop iterates a Python {type(iterable).__name__}, so it is unrolled while "
                    f"tracing, but its `break` depends on a tensor condition, which only the graph can decide. "
                    f"Iterate a tensor instead (for x in me.constant(...), or for i in me.range(n)), so the loop "
                    f"becomes a graph loop.")
            if not go:
                break
        values = body(item, *values)
    return values


class SymbolicRange:
    """``me.range(start, limit, delta)`` with a symbolic argument: a graph loop's counter, never a tensor
    (its length is known only when the graph runs; minieager's tensors have static shapes)."""

    def __init__(self, start, limit, delta):
        dtype = next(x.dtype for x in (start, limit, delta) if isinstance(x, Tensor))
        self.start, self.limit, self.delta = (convert_to_tensor(x, dtype=dtype) for x in (start, limit, delta))


def range_(range_function, *args):
    """``for i in me.range(n)``: if an argument is symbolic, the loop counts in the graph (SymbolicRange)."""
    if any(_symbolic(a) for a in args):
        start, limit, delta = (0, args[0], 1) if len(args) == 1 else (tuple(args) + (1,))[:3]
        return SymbolicRange(start, limit, delta)
    return range_function(*args)


def _tensor_for(iterable, body, values, extra_test):
    """A for loop as a while loop over a counter: ``i`` from start to limit, or an index into the tensor."""
    if isinstance(iterable, SymbolicRange):
        r = iterable

        def test(i, *values):
            up = logical_and(greater(r.delta, 0), less(i, r.limit))
            down = logical_and(less(r.delta, 0), greater(i, r.limit))
            return logical_or(up, down)

        def step(i, *values):
            return (i + r.delta,) + tuple(body(i, *values))
        start = r.start
    else:
        if iterable.ndim == 0:
            raise TypeError(f"{_where(body)}: cannot iterate over a scalar tensor (shape ()); iterate "
                            f"me.range(n) or a tensor with a first dimension.")
        n = iterable.shape[0]
        if n is None:                     # an unknown batch: its size is known when the graph runs
            n = shape_of(iterable)[0]

        def test(i, *values):
            return less(i, n)

        def step(i, *values):
            return (i + 1,) + tuple(body(gather(iterable, i), *values))
        start = convert_to_tensor(0)
    if extra_test is not None:
        bare_test = test

        def test(i, *values):       # noqa: F811 (the loop's test with its break flag)
            return logical_and(bare_test(i, *values), convert_to_tensor(extra_test(*values)))
    out = _graph_loop(test, step, (start,) + tuple(values), body_for_names=body)
    return out[1:]


def _graph_loop(test, body, values, body_for_names=None):
    """One me.while_loop. A loop variable may be a tensor, a Python number (made a tensor) or a list,
    tuple or dict of them (``state = (h, c)``); each is checked and named in errors (TF's checks)."""
    names_of = body_for_names or body
    names = _names(names_of)
    names = names[1:] if body_for_names is not None else names      # (the for loop's own item)
    offset = len(values) - len(names)                              # the for loop's counter comes first
    where = _where(names_of)
    labels = ["loop counter"] * offset + list(names)
    structures, flat = [], []
    for name, v in zip(labels, values):
        if isinstance(v, Undefined):
            raise ValueError(
                f"{where}: '{name}' is assigned in the loop and used after it, but has no value before the "
                f"loop: a graph loop needs each loop variable's shape and dtype before it starts. Give "
                f"'{name}' a value before the loop (e.g. {name} = me.zeros(...)).")
        leaves = []
        for leaf in nest.flatten(v):
            if isinstance(leaf, (bool, int, float, np.ndarray, np.generic)):
                leaf = convert_to_tensor(leaf)
            if not isinstance(leaf, Tensor) and not nest.is_composite(leaf):
                raise TypeError(f"{where}: '{name}' is {_describe(v)}, changed by a loop whose condition is a "
                                f"tensor: a graph loop can carry only tensors and TensorArrays (or lists, tuples, "
                                f"dicts of them). Make it a tensor.")
            leaves.append(leaf)
        structures.append(nest.pack_sequence_as(v, leaves) if isinstance(v, (list, tuple, dict)) else leaves[0])
        flat.extend(leaves)

    def unflatten(flat_values):
        it = iter(flat_values)
        return [nest.pack_sequence_as(st, [next(it) for _ in nest.flatten(st)]) for st in structures]

    def checked_body(*flat_values):
        before_values = unflatten(flat_values)
        out = body(*before_values)
        fixed = []
        for name, before, after in zip(labels, before_values, out):
            if _structure(after) != _structure(before):
                raise TypeError(f"{where}: '{name}' is {_describe(before)} before the loop, but {_describe(after)} "
                                f"after one iteration: a loop variable keeps its structure.")
            for b, a in zip(nest.flatten(before), nest.flatten(after)):
                fixed.append(_same_kind(where, name, b, a))
        return fixed

    result = while_loop(lambda *flat_values: test(*unflatten(flat_values)), checked_body, flat)
    return tuple(unflatten(result if isinstance(result, (list, tuple)) else [result]))


def _same_kind(where, name, before, after):
    """``after`` (one leaf of a loop variable after the body) as a tensor of ``before``'s dtype and shape
    (or a TensorArray of ``before``'s dtype: me.while_loop checks its buffer)."""
    if nest.is_composite(before):
        if type(after) is not type(before) or after.dtype is not before.dtype:
            raise TypeError(f"{where}: '{name}' is {_describe(before)} before the loop, but {_describe(after)} "
                            f"after one iteration: a loop variable keeps its type and dtype.")
        return after
    if isinstance(after, (bool, int, float)) and not isinstance(after, Tensor):
        after = convert_to_tensor(after, dtype=before.dtype)
    if not isinstance(after, Tensor):
        raise TypeError(f"{where}: '{name}' becomes {_describe(after)} in the loop, but a graph loop variable "
                        f"must stay a tensor.")
    if after.dtype is not before.dtype:
        raise TypeError(f"{where}: '{name}' has dtype {before.dtype.name} before the loop, but dtype "
                        f"{after.dtype.name} after one iteration. Give it the loop's dtype before the loop "
                        f"(e.g. {name} = me.constant(0.0) for a float).")
    if _shape(after) != _shape(before):
        raise ValueError(f"{where}: '{name}' has shape {_shape(before)} before the loop, but shape {_shape(after)} "
                         f"after one iteration: minieager's graphs have static shapes, so a loop variable keeps "
                         f"its shape.")
    return after


def stay_python(value, line, reason, iterable=False):
    """A condition (or a for loop's iterable) AutoGraph leaves as Python, as the statement cannot become
    a graph: if it would have become one (a symbolic tensor; a tensor iterated while tracing), say why
    and what to write instead."""
    graph_loop = iterable and (isinstance(value, SymbolicRange) or (isinstance(value, Tensor) and tracer() is not None))
    if _symbolic(value) or graph_loop:
        raise NotImplementedError(f"line {line}: {reason}")
    return value
