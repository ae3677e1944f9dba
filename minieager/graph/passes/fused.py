"""``FusedOp``: a group of elementwise ops run as one generated numba loop.

Elementwise fusion (``fusion.py``) replaces a chain or tree of elementwise calls, such as
``tanh(x * w + b) * 0.5 + x``, by one call whose op is a ``FusedOp``. Its kernel is Python source
written here, one line per fused op, computing every element in one pass over the output
instead of one pass (and one temporary array) per op::

    from minieager.kernels.cpu.loops.scalar import add, multiply, tanh

    @njit(parallel=True, cache=True, error_model="numpy")
    def fused_kernel(in0, in1, in2, in3, out):
        for i in prange(out.size):
            a0 = in0[i]
            v0 = float32(multiply(a0, in1))
            v1 = float32(add(v0, in2))
            v2 = float32(tanh(v1))
            ...
            out[i] = v4

Each line calls its op's formula (``kernels/formulas.py``), compiled for the CPU and inlined
(``cpu/loops/scalar.py``): the same function as the op's eager loop. Each line rounds to the
op's own dtype (``float32(...)``), so the fused loop computes what the eager ops compute, op by
op, to the bit: the kernel has no ``fastmath`` flag, since contracting ``a*a - b`` of two lines
into one FMA (rounded once) changes results; the formulas whose eager loops contract inside
themselves (exp, tanh ...) are called as separately compiled functions that do
(``scalar.exp_contracted``). Operands are read in one of three ways, chosen from their static
shapes: a full operand element by element (``in0[i]``), a one-element operand as a scalar
(``in1``), and a row broadcast over leading axes (a bias ``(16,)`` against ``(32, 26, 26, 16)``)
as ``in2[j]`` in a loop nest ``out[r, j]``, with no broadcast copy. Any other broadcast is copied
to the output's shape first.

numba caches compiled code only for functions defined in a real file, so the source is written
to ``<cache>/minieager/fused/fused_<hash of the source and the formulas>.py`` and imported from
there; a later process finds the file and numba's cache beside it, and compiles nothing.

The gradient: a ``FusedOp``'s VJP runs its members' own gradient rules backwards (the chain rule),
after recomputing the intermediate values it did not keep, with minieager ops, so a tape around a
``me.function`` call gets the same gradients as the unfused graph, second derivatives included.
"""
import hashlib
import importlib.util
import math
import os
import sys
import tempfile
from dataclasses import dataclass

import numpy as np

from ... import machine
from ...engine import dtypes
from ...engine.abstract import AbstractArray
from ...engine.device import device_type
from ...engine.op import Op
from ...kernels import formulas
from ...kernels.cpu.threads import use_threads_for
from ...kernels.registry import get_kernel
from ...ops.elementwise import add
from ...ops.reductions import unbroadcast

# The ops that may join a fused kernel: every op with a formula in kernels/formulas.py but erf,
# which fusion has left out so far (adding it changes which graphs fuse: a change of its own).
FUSIBLE = frozenset(formulas.OPS) - {"erf"}
FUSIBLE_DTYPES = (dtypes.float32, dtypes.float64, dtypes.bool_)   # numba has no float16 arithmetic

_HEADER = '''\
from numba import njit, prange
from numpy import float32, float64

from minieager.kernels.cpu.loops.scalar import {formulas}

ONE_FLAT_LOOP = {flat}   # LLVM may interleave two vectors per iteration (kernels/cpu/loops/interleave.py)


@njit(parallel=True, cache=True, error_model="numpy")
def fused_kernel({args}):
'''


@dataclass(frozen=True)
class Member:
    """One fused op: ``values[n] = op(values[args[0]], ...)``. Values 0..k-1 are the fused node's
    inputs; member i computes value k + i."""
    op: Op
    args: tuple
    attrs: dict
    dtype: object


def _trim(shape):
    shape = tuple(shape)
    while shape and shape[0] == 1:
        shape = shape[1:]
    return shape


def _size(shape):
    """The number of elements, or None if a dimension is known only at run time."""
    return None if None in shape else int(np.prod(shape))


def operand_modes(shapes, out_shape):
    """How the kernel reads each operand, from its static shape: ``(modes, row_length)``.

    ``"scalar"``: one element, broadcast to all. ``"row"``: it equals the output's trailing axes
    (a bias), read as ``in[j]`` in a loop nest over ``out[r, j]``; every row operand must have the
    same row (the longest wins; the others become full). ``"full"``: anything else. A dimension
    known only at run time (None) may be anywhere but in a scalar or a row.
    """
    out_shape = tuple(out_shape)
    size = _size(out_shape)
    rows = [_trim(s) for s in shapes
            if (_size(s) or 0) > 1 and _trim(s) != out_shape and _trim(s) == out_shape[len(out_shape) - len(_trim(s)):]]
    row = max(rows, key=len) if rows else None
    modes = []
    for shape in shapes:
        if _size(shape) == 1 and size != 1:
            modes.append("scalar")
        elif row is not None and (_size(shape) or 0) > 1 and _trim(shape) == row:
            modes.append("row")
        else:
            modes.append("full")
    return modes, (int(np.prod(row)) if row is not None else None)


def _formula_name(member):
    """The compiled formula a fused line calls (see the module docstring on rounding)."""
    name = formulas.OPS[member.op.name].__name__
    return f"{name}_contracted" if name in formulas.CONTRACT else name


def generate_source(members, modes):
    """The numba source that computes ``members`` on operands read as ``modes`` say."""
    k = len(modes)
    rows = "row" in modes
    names = []
    body = []
    indent = "        " if not rows else "            "
    for n, mode in enumerate(modes):
        if mode == "scalar":
            names.append(f"in{n}")
        else:
            body.append(f"{indent}a{n} = in{n}[{'i' if not rows else ('r, j' if mode == 'full' else 'j')}]")
            names.append(f"a{n}")
    for i, member in enumerate(members):
        formula = _formula_name(member)
        operands = [names[a] for a in member.args]
        if "alpha" in member.attrs:   # leaky_relu's slope, in the op's dtype as the eager loop gets it
            operands.append(f"{member.dtype.name}({float(member.attrs['alpha'])!r})")
        expression = f"{formula}({', '.join(operands)})"
        if member.dtype.is_floating:
            expression = f"{member.dtype.name}({expression})"
        body.append(f"{indent}v{i} = {expression}")
        names.append(f"v{i}")
    body.append(f"{indent}out[{'i' if not rows else 'r, j'}] = v{len(members) - 1}")
    args = ", ".join([f"in{n}" for n in range(k)] + ["out"])
    if rows:
        loop = ["    for r in prange(out.shape[0]):", "        for j in range(out.shape[1]):"]
    else:
        loop = ["    for i in prange(out.size):"]
    used = sorted({_formula_name(member) for member in members})
    return _HEADER.format(formulas=", ".join(used), flat=not rows, args=args) + "\n".join(loop + body) + "\n"


def source_dir():
    """Where generated kernels are written: beside numba's cache (``machine.numba_cache_dir``)."""
    base = machine.numba_cache_dir()
    if base is None:
        cache_home = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        base = os.path.join(cache_home, "minieager", "numba")
    return os.path.join(os.path.dirname(base), "fused")


_loaded = {}   # source hash -> (the compiled function, its file), once per process


def load(source):
    """``(fused_kernel function, file)`` for ``source``: the file is written once, then reused.

    The file is named by a hash of the source and of the formulas it calls
    (``loops.formulas_digest``): numba's cache checks only this file, so after an edit to a
    formula the kernel gets a new file and is compiled again."""
    from ...kernels.cpu.loops import formulas_digest, interleave
    digest = hashlib.sha1((formulas_digest() + source).encode()).hexdigest()[:16]
    if digest in _loaded:
        return _loaded[digest]
    interleave.install()               # two vectors per iteration, as the elementwise loops (interleave.py)
    try:
        path = _write_once(source_dir(), digest, source)
    except OSError:                    # a read-only home: a temporary folder (compiled again per machine boot)
        path = _write_once(os.path.join(tempfile.gettempdir(), "minieager-fused"), digest, source)
    name = f"minieager_fused_{digest}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    _loaded[digest] = module.fused_kernel, path
    return _loaded[digest]


def _write_once(folder, digest, source):
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, f"fused_{digest}.py")
    if not os.path.exists(path):       # an existing file keeps its timestamp, and numba its cache
        partial = f"{path}.{os.getpid()}.tmp"
        with open(partial, "w") as f:
            f.write(source)
        os.replace(partial, path)      # atomic: another process never imports half a file
    return path


class FusedKernel:
    """The CPU kernel of a ``FusedOp``: prepares the operands, allocates ``out``, runs the loop.

    ``source`` is the generated Python; ``print(kernel)`` shows it.
    """

    def __init__(self, members, input_shapes, shape, dtype):
        self.members, self.shape, self.dtype = members, tuple(shape), dtype
        self.size = _size(shape)    # None: a size known only when it runs, taken from the operands then
        modes, self.row_length = operand_modes(input_shapes, shape)
        self.modes = tuple(modes)
        self.rows = self.row_length is not None
        self.source = generate_source(members, self.modes)
        self.path = None
        self._function = None

    def __call__(self, *arrays):
        if self._function is None:
            self._function, self.path = load(self.source)
        shape, size = self.shape, self.size
        if size is None:                  # the output is the operands broadcast (elementwise ops)
            shape = np.broadcast_shapes(*[a.shape for a in arrays])
            size = math.prod(shape)
        out = np.empty(shape, self.dtype.np_dtype)
        if self.rows:
            rows = size // self.row_length
            args = [_operand(a, mode, shape, (rows, self.row_length), self.row_length)
                    for a, mode in zip(arrays, self.modes)]
            use_threads_for(size, rows)
            self._function(*args, out.reshape(rows, self.row_length))
        else:
            args = [_operand(a, mode, shape, (size,), None) for a, mode in zip(arrays, self.modes)]
            use_threads_for(size)
            self._function(*args, out.reshape(size))
        return out

    def __str__(self):
        return self.source

    def __repr__(self):
        return f"<FusedKernel of {len(self.members)} ops, output {self.shape} {self.dtype.name}>"


def _operand(a, mode, shape, flat_shape, row_length):
    if mode == "scalar":
        return a.reshape(-1)[0]            # a NumPy scalar: numba types it float32, bool ...
    if mode == "row":
        return np.ascontiguousarray(a).reshape(row_length)
    if a.shape != shape:
        a = np.broadcast_to(a, shape)      # a broadcast no mode covers: copied to full size
    return np.ascontiguousarray(a).reshape(flat_shape)


class FusedOp(Op):
    """An op that computes a group of elementwise ops in one loop (see the module docstring).

    It is an ``Op`` like any other: the executor calls it, a tape records it and runs its VJP.
    ``members`` are the fused ops in order; the last one's value is the output.
    """

    __slots__ = ("members", "kernel")

    def __init__(self, members, input_shapes, shape, dtype, formula):
        n = len(input_shapes)
        super().__init__("fused", [f"in{k}" for k in range(n)], formula,
                         grads=("its ops' gradient rules, chained",) * n, vjp=self._vjp, selective=True,
                         shape_rule=lambda *inputs: AbstractArray(shape, dtype.np_dtype))
        self.members = tuple(members)
        self.kernel = FusedKernel(self.members, input_shapes, shape, dtype)

    @property
    def source(self):
        return self.kernel.source

    def _load_kernel(self, device):
        if device_type(device) == "cpu":
            kernel = self.kernel
        else:   # no code generator for this device: the members' own kernels, one after another
            kernel = self._unfused(device)
        self._kernels[device] = kernel
        return kernel

    def _unfused(self, device):
        kernels = [get_kernel(member.op.name, device) for member in self.members]

        def run(*arrays):
            values = list(arrays)
            for member, kernel in zip(self.members, kernels):
                values.append(kernel(*[values[a] for a in member.args], **member.attrs))
            return values[-1]
        return run

    def _vjp(self, dy, *inputs, out, needs):
        """The chain rule through the members, last to first, with their own VJPs."""
        n = len(inputs)
        values = list(inputs)
        for member in self.members[:-1]:   # the intermediates, recomputed with minieager ops
            values.append(member.op(*[values[a] for a in member.args], **member.attrs))
        values.append(out)
        wanted = list(needs)
        for member in self.members:
            wanted.append(member.op.vjp is not None and any(wanted[a] for a in member.args))
        grads = [None] * len(values)
        grads[-1] = dy
        for i in reversed(range(len(self.members))):
            member, grad = self.members[i], grads[n + i]
            if grad is None or not wanted[n + i]:
                continue
            attrs = dict(member.attrs)
            if member.op.selective:
                attrs["needs"] = tuple(wanted[a] for a in member.args)
            sent = member.op.vjp(grad, *[values[a] for a in member.args], out=values[n + i], **attrs)
            for a, g in zip(member.args, sent):
                if g is None or not wanted[a]:
                    continue
                g = unbroadcast(g, values[a]._value.shape)
                grads[a] = g if grads[a] is None else add(grads[a], g)
        return tuple(grads[:n])
