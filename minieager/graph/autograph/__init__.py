"""AutoGraph: Python ``if``/``while``/``for`` on tensors inside ``me.function``, rewritten into
``me.cond`` / ``me.while_loop`` calls, as TF's AutoGraph does.

    me.autograph.to_code(f)     the converted source, as text a learner can read
    me.autograph.to_graph(f)    the converted Python function (me.function(f) uses it when tracing)
    me.autograph.experimental.do_not_convert    a decorator: trace this function as written

converter.py   the source-to-source rewrite (ast), in three small passes
runtime.py     the helpers the converted code calls (``ag.if_stmt`` ...): Python or graph, decided per call
"""
import ast
import copy
import functools
import inspect
import re
import textwrap
import types
import warnings
import weakref

from . import runtime
from .converter import COMMENT, ConversionError, NotConverted, StripComments, convert_tree

__all__ = ["to_code", "to_graph", "experimental", "ConversionError"]


_Unconvertible = NotConverted    # the source cannot be read or parsed, or uses `nonlocal`: traced as written


def _parse(f):
    """(the ``def``'s syntax tree, with the file's line numbers; the file's lines; the file name)."""
    if not isinstance(f, types.FunctionType):
        raise _Unconvertible(f"it is a {type(f).__name__}, not a Python function")
    if f.__name__ == "<lambda>":
        raise _Unconvertible("AutoGraph converts functions written with `def`, not lambdas")
    try:
        lines, first = inspect.getsourcelines(f)     # IPython keeps the source of notebook cells
    except (OSError, TypeError) as e:
        raise _Unconvertible(f"its source code cannot be read ({e}); functions typed at a plain `python` prompt "
                             f"or made with exec() have none") from None
    source = textwrap.dedent("".join(lines))
    try:
        tree = ast.parse(source)
    except SyntaxError as e:
        raise _Unconvertible(f"its source cannot be parsed on its own ({e.msg})") from None
    fn = tree.body[0]
    if not isinstance(fn, ast.FunctionDef):
        raise _Unconvertible("its source is not a plain `def`")
    ast.increment_lineno(tree, first - 1)
    all_lines = [""] * (first - 1) + [line.rstrip("\n") for line in lines]
    return fn, all_lines, f.__code__.co_filename


_trees = weakref.WeakKeyDictionary()    # function -> (converted tree, file name): converted once


def _converted_tree(f):
    if f not in _trees:
        fn, lines, filename = _parse(f)
        _trees[f] = convert_tree(fn, lines), filename
    return _trees[f]


def to_graph(f):
    """``f`` with its control flow converted: a plain Python function that calls ``ag.if_stmt`` ... (it
    runs eagerly too; inside me.function it records me.cond / me.while_loop for tensor conditions)."""
    if isinstance(f, types.MethodType):
        return types.MethodType(to_graph(f.__func__), f.__self__)
    f = getattr(f, "python_function", f)          # an me.function: convert the function it wraps
    try:
        tree, filename = _converted_tree(f)
    except _Unconvertible as e:
        raise ConversionError(f"AutoGraph cannot convert '{getattr(f, '__name__', f)}': {e}.") from None
    return _build(f, tree, filename)


def _build(f, tree, filename):
    """Compile the converted ``def`` inside a factory whose parameters are ``ag`` and ``f``'s closure
    variables (so the compiler makes them closure variables), then give the new function ``f``'s own
    closure cells: it sees the same globals and the same, live, enclosing variables as ``f``."""
    fn = StripComments().visit(copy.deepcopy(tree))
    free = f.__code__.co_freevars
    factory = ast.FunctionDef(
        name="autograph_factory",
        args=ast.arguments(posonlyargs=[], args=[ast.arg(arg=a) for a in ("ag",) + free], kwonlyargs=[],
                           kw_defaults=[], defaults=[]),
        body=[fn, ast.Return(value=ast.Name(id=fn.name, ctx=ast.Load()))], decorator_list=[], returns=None)
    module = ast.Module(body=[factory], type_ignores=[])
    ast.copy_location(factory, fn)
    ast.fix_missing_locations(module)
    namespace = {}
    exec(compile(module, filename, "exec"), f.__globals__, namespace)
    made = namespace["autograph_factory"](runtime, *([None] * len(free)))
    cells = dict(zip(free, f.__closure__ or ()))
    cells["ag"] = types.CellType(runtime)
    closure = tuple(cells[name] for name in made.__code__.co_freevars)
    new = types.FunctionType(made.__code__, f.__globals__, f.__name__, f.__defaults__, closure)
    new.__kwdefaults__ = f.__kwdefaults__
    functools.update_wrapper(new, f)
    del new.__wrapped__
    new.__autograph_converted__ = True
    return new


def to_code(f):
    """The converted source of ``f`` as a string: each converted statement is preceded by a comment
    saying which line it was and what it became."""
    f = getattr(f, "python_function", f)
    if isinstance(f, types.MethodType):
        f = f.__func__
    try:
        tree, _ = _converted_tree(f)
    except _Unconvertible as e:
        raise ConversionError(f"AutoGraph cannot convert '{getattr(f, '__name__', f)}': {e}.") from None
    text = ast.unparse(tree)
    return re.sub(rf"^(\s*){COMMENT}\((['\"])(.*)\2\)$", lambda m: f"{m.group(1)}# {m.group(3)}", text,
                  flags=re.MULTILINE) + "\n"


def convert_for_tracing(f):
    """What me.function traces: ``f`` converted, or ``f`` itself (with a warning saying why) when its
    source cannot be read, or when it is marked do_not_convert."""
    if getattr(f, "__autograph_do_not_convert__", False) or getattr(f, "__autograph_converted__", False):
        return f
    if isinstance(f, types.MethodType):
        return types.MethodType(convert_for_tracing(f.__func__), f.__self__)
    if not isinstance(f, types.FunctionType) or f.__name__ == "<lambda>" or \
            f.__code__.co_filename.startswith(runtime._PACKAGE):
        return f      # a lambda has no statements to convert; minieager's own functions (Keras' train step)
        #               are written for graph mode already; other callables are traced as they are
    try:
        tree, filename = _converted_tree(f)
        return _build(f, tree, filename)
    except ConversionError:
        raise                             # code that cannot be a graph: the error names the line and the fix
    except Exception as e:                # the source cannot be read, `nonlocal`, or a converter bug: as written
        why = str(e) if isinstance(e, _Unconvertible) else f"the converter failed ({type(e).__name__}: {e})"
        warnings.warn(f"AutoGraph could not convert '{getattr(f, '__name__', f)}' and traces it as written: {why}. "
                      f"A Python `if`/`while`/`for` on a tensor inside it will fail; use me.cond / me.while_loop "
                      f"there.", stacklevel=4)
        return f


class experimental:   # noqa: N801 (TF's namespace: me.autograph.experimental.do_not_convert)
    @staticmethod
    def do_not_convert(func=None):
        """Decorator: me.function traces this function as written (no AutoGraph)."""
        if func is None:
            return experimental.do_not_convert
        func.__autograph_do_not_convert__ = True
        return func
