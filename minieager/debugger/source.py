"""Code links: where an op node came from, and the code that differentiates and computes it.

``caller()`` is the line of the learner's code that ran an op. A debugger attached to a tape
asks for it once per recorded op (``TapeDebugger._on_record``), so a tape without a debugger
and ops outside any tape pay nothing. ``op_code(op)`` is read when a trace is built: the op's
gradient rule as source (its VJP function; for a ``@custom_gradient`` function, the function
itself) and the file and line of its CPU kernel.
"""
import functools
import inspect
import linecache
import os
import re
import sys
import textwrap

from ..kernels.registry import get_kernel

PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
MAX_SOURCE_LINES = 40


_INSIDE = (PACKAGE, "<frozen")


def caller():
    """(file, line) of the nearest frame outside minieager (the learner's code), or None.

    Called once per recorded op, and only by an attached debugger: a few frames' file names are
    compared, the line's text is read later (``code_line``), when a trace is built.
    """
    frame = sys._getframe(1)
    while frame is not None:
        if not frame.f_code.co_filename.startswith(_INSIDE):
            return (frame.f_code.co_filename, frame.f_lineno)
        frame = frame.f_back
    return None


def _short(path):
    """A path as a learner reads it, never an absolute path of the machine that ran it.

    Inside minieager from the package root; a notebook cell as "notebook cell" (IPython names it
    /tmp/ipykernel_<pid>/<hash>.py); a module elsewhere as it is imported, from the ``sys.path``
    folder that holds it ("course/bugs.py"); any other file by its name alone. A trace is saved in
    notebooks and published on the course site, where the builder's folders have no business.
    """
    if path.startswith(PACKAGE):
        return "minieager/" + path[len(PACKAGE):].replace(os.sep, "/")
    if "ipykernel_" in path or path.startswith("<ipython-input"):
        return "notebook cell"
    if not os.path.isabs(path):
        return path.replace(os.sep, "/")
    roots = [os.path.abspath(p or os.curdir) + os.sep for p in sys.path]
    root = max((r for r in roots if path.startswith(r)), key=len, default=None)
    return path[len(root):].replace(os.sep, "/") if root else os.path.basename(path)


def without_comments(text):
    """``text`` (Python source) without its ``#`` comments; a line that held only a comment is dropped.

    Saved traces carry source (the line that ran an op, an op's VJP); a comment there is the
    author's note to themselves (in the course, it can be an exercise's answer). Strings, docstrings
    included, are kept: a ``#`` inside quotes is not a comment.
    """
    out, quote = [], None          # quote: the string delimiter open at the end of the previous line
    for line in text.split("\n"):
        k, cut = 0, None
        while k < len(line):
            if quote:
                if line[k] == "\\":
                    k += 2
                    continue
                if line.startswith(quote, k):
                    k += len(quote)
                    quote = None
                    continue
                k += 1
            elif line[k] == "#":
                cut = k
                break
            elif line[k] in "'\"":
                quote = line[k] * 3 if line.startswith(line[k] * 3, k) else line[k]
                k += len(quote)
            else:
                k += 1
        if quote is not None and len(quote) == 1:
            quote = None           # an unterminated one-quote string ends with its line
        if cut is None:
            out.append(line)
        elif line[:cut].strip():
            out.append(line[:cut].rstrip())
    return "\n".join(out)


def code_line(where):
    """{"file", "line", "text"} for a (file, line) from ``caller()``; None stays None."""
    if where is None:
        return None
    path, line = where
    return {"file": _short(path), "line": line, "text": without_comments(linecache.getline(path, line).strip())}


def _function_source(fn):
    try:
        lines, first = inspect.getsourcelines(fn)
        path = inspect.getsourcefile(fn) or fn.__code__.co_filename
    except (OSError, TypeError):
        return None
    text = "".join(lines[:MAX_SOURCE_LINES]).rstrip() + ("\n..." if len(lines) > MAX_SOURCE_LINES else "")
    return {"file": _short(path), "line": first, "name": getattr(fn, "__qualname__", fn.__name__),
            "text": without_comments(textwrap.dedent(text))}


def _closure(fn, name):
    try:
        return inspect.getclosurevars(fn).nonlocals.get(name)
    except (TypeError, ValueError):
        return None


def _op_definition(op):
    """The ``Op("name", ...)`` statement that defines ``op`` (formula, rule and VJP side by side)."""
    path = getattr(getattr(op.vjp, "__code__", None), "co_filename", None)
    if not path:
        return None
    lines = linecache.getlines(path)
    start = next((k for k, text in enumerate(lines) if re.search(rf'\bOp\(\s*"{re.escape(op.name)}"', text)), None)
    if start is None:
        return None
    depth, end = 0, start
    for end in range(start, min(len(lines), start + MAX_SOURCE_LINES)):
        depth += lines[end].count("(") - lines[end].count(")")
        if depth <= 0:
            break
    return {"file": _short(path), "line": start + 1, "name": op.name,
            "text": without_comments(textwrap.dedent("".join(lines[start:end + 1])).rstrip())}


@functools.lru_cache(maxsize=None)
def _op_code_cached(op):
    if getattr(op, "is_custom", False):
        # A @custom_gradient node: the function the learner wrote (forward and its grad_fn).
        user_fn = _closure(op.vjp, "f")
        return {"vjp": _function_source(user_fn) if user_fn else None, "kernel": None}
    try:
        kernel = get_kernel(op.name, "cpu")
        kernel = {"file": _short(inspect.getsourcefile(kernel)), "line": inspect.getsourcelines(kernel)[1],
                  "name": kernel.__name__}
    except Exception:       # no CPU kernel, or no source for it (a builtin): no link, not an error
        kernel = None
    vjp = None if op.vjp is None else _op_definition(op) or _function_source(op.vjp)
    return {"vjp": vjp, "kernel": kernel}


def op_code(op):
    """{"vjp": {file, line, name, text} | None, "kernel": {file, line, name} | None} for an Op."""
    try:
        return _op_code_cached(op)
    except TypeError:       # an unhashable op object: look it up every time
        return _op_code_cached.__wrapped__(op)
