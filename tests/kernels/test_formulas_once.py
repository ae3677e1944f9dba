"""Each elementwise formula is written once, in kernels/formulas.py, and every backend is built from it.

The CPU loops, graph mode's fused kernels and the CUDA kernels used to write each formula
again; these tests read their source (with ``ast``) and their compiled functions, and fail if a
formula is written anywhere else, or if a backend computes an op with anything but its formula.
"""
import ast
import copy
import inspect
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import minieager
from minieager.kernels import formulas

PACKAGE = Path(minieager.__file__).parent
# Where formulas used to be written (and where a new one would be): the numba code of the backends.
# Not cpu/elementwise.py: tiny tensors are computed by NumPy's own functions, written with NumPy.
BACKEND_FILES = sorted([*PACKAGE.glob("kernels/cpu/loops/*.py"), *PACKAGE.glob("kernels/cuda/*.py"),
                        PACKAGE / "graph" / "passes" / "fused.py"])
NAMES = [f.__name__ for f in formulas.FORMULAS]
# Spellings of one math function in numba code: np.log, math.log, vexp ...
_SAME_FUNCTION = {"vexp": "exp", "vtanh": "tanh", "_floordiv": "floordiv"}


def _tree(path):
    return ast.parse(Path(path).read_text())


class _Normalise(ast.NodeTransformer):
    """An expression with its variables numbered by first use (x, v, a -> _0) and ``np.log``,
    ``math.log`` and ``log`` all written ``log``: the same formula reads the same however it is spelled."""

    def __init__(self):
        self.names = {}

    def visit_Name(self, node):
        if node.id in ("abs", "max", "min"):
            return node
        name = _SAME_FUNCTION.get(node.id, node.id)
        if name in NAMES:          # a call of a math function by its bare name
            return ast.Name(id=name, ctx=ast.Load())
        return ast.Name(id=self.names.setdefault(node.id, f"_{len(self.names)}"), ctx=ast.Load())

    def visit_Attribute(self, node):
        return ast.Name(id=_SAME_FUNCTION.get(node.attr, node.attr), ctx=ast.Load())

    def visit_Call(self, node):
        node = self.generic_visit(node)
        if isinstance(node.func, ast.Name) and node.func.id in ("float64", "float32") and len(node.args) == 1:
            return node.args[0]    # np.float64(x) is x, for the formula
        return node


def _fingerprint(expression):
    return ast.dump(_Normalise().visit(copy.deepcopy(expression)), annotate_fields=False)


def _operations(expression):
    return sum(isinstance(n, (ast.BinOp, ast.UnaryOp, ast.Compare, ast.IfExp, ast.BoolOp)) for n in ast.walk(expression))


def formula_expressions():
    """(formula name, fingerprint) of what each formula computes (the value it returns, and of sigmoid
    also its ``e = ...``), where that has two operations or more: copied elsewhere, it would be a
    second formula (``a + b`` alone would match any sum)."""
    found = []
    for node in _tree(formulas.__file__).body:
        if isinstance(node, ast.FunctionDef) and node.name in NAMES:
            for statement in node.body:
                if isinstance(statement, (ast.Return, ast.Assign)) and _operations(statement.value) >= 2:
                    found.append((node.name, _fingerprint(statement.value)))
    return found


def copies_in(source, expressions):
    """Where an expression of ``expressions`` is written in ``source``: ["sigmoid at line 12"]."""
    wanted = dict((fp, name) for name, fp in expressions)
    copies = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.expr) and _operations(node) >= 2:
            name = wanted.get(_fingerprint(node))
            if name:
                copies.append(f"{name} at line {node.lineno}")
    return copies


def test_the_fingerprints_find_formulas_however_they_are_spelled():
    """The check below would catch the formulas as the backends used to write them."""
    old_loops = '''
for i in prange(out.size):
    v = np.float64(x[i])
    e = vexp(-abs(v))
    out[i] = 1 / (1 + e) if v >= 0 else e / (1 + e)
    out[i] = max(v, 0) + np.log1p(vexp(-abs(v)))
'''
    old_cuda = '''
if op == 13:
    return a * (1 - b * b)
if op == 16:
    return max(x, 0) + math.log1p(math.exp(-abs(x)))
'''
    expressions = formula_expressions()
    assert {name for name, _ in expressions} >= {"sigmoid", "softplus", "sign", "maximum", "minimum", "tanh_grad",
                                                   "sigmoid_grad", "leaky_relu", "relu_grad"}
    assert {c.split(" at ")[0] for c in copies_in(old_loops, expressions)} == {"sigmoid", "softplus"}
    assert {c.split(" at ")[0] for c in copies_in(old_cuda, expressions)} == {"tanh_grad", "softplus"}


@pytest.mark.parametrize("path", BACKEND_FILES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_formula_is_written_again_in_a_backend(path):
    assert copies_in(path.read_text(), formula_expressions()) == []


def test_fused_kernels_have_no_templates_of_their_own():
    """fused.py writes each line as a call of the op's formula: no format strings like "{0} + {1}"."""
    strings = [n.value for n in ast.walk(_tree(PACKAGE / "graph" / "passes" / "fused.py"))
               if isinstance(n, ast.Constant) and isinstance(n.value, str)]
    assert [s for s in strings if "{0}" in s or "{1}" in s] == []


def test_formulas_lists_every_formula():
    """FORMULAS, which the backends compile, holds every function formulas.py defines (but its helpers)."""
    defined = {name for name, value in vars(formulas).items()
               if inspect.isfunction(value) and value.__module__ == formulas.__name__}
    assert defined - {"with_math", "compile_all", "source_digest"} == set(NAMES)
    assert len(NAMES) == len(set(NAMES))


def test_formulas_call_only_math_and_python_builtins():
    """A backend swaps in its own ``math`` (formulas.with_math) and nothing else: a formula that called
    another formula, NumPy or a helper would not compile on every backend."""
    for node in _tree(formulas.__file__).body:
        if isinstance(node, ast.FunctionDef) and node.name in NAMES:
            for call in (n for n in ast.walk(node) if isinstance(n, ast.Call)):
                f = call.func
                ok = (isinstance(f, ast.Name) and f.id in ("abs", "max")) or (
                    isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "math")
                assert ok, f"{node.name} calls {ast.unparse(f)}"


def test_formulas_import_neither_numba_nor_minieager():
    imported = [ast.unparse(n) for n in _tree(formulas.__file__).body if isinstance(n, (ast.Import, ast.ImportFrom))]
    assert imported == ["import hashlib", "import math", "import types"]
    code = "import sys, json; import minieager.kernels.formulas; print(json.dumps('numba' in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) is False


# ----------------------------------------------------------------------------- the CPU loops
def test_loops_are_built_from_the_templates_only():
    """loops/elementwise.py writes no loop per op: the only loops in it are its three templates,
    each ``out[i] = formula(...)``, and no function in it is compiled by a decorator of its own."""
    tree = _tree(PACKAGE / "kernels" / "cpu" / "loops" / "elementwise.py")
    with_loops = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            loops = [n for n in ast.walk(node) if isinstance(n, ast.For)]
            if loops:
                with_loops[node.name] = loops
            assert node.decorator_list == [] or node.name == "_item_in_numba", node.name
    assert set(with_loops) == {"_one", "_two", "_three"}
    for name, (loop,) in with_loops.items():
        (statement,) = loop.body
        assert ast.unparse(statement.targets[0]) == "out[i]"
        assert isinstance(statement.value, ast.Call) and ast.unparse(statement.value.func) == "formula"


def test_every_formula_has_a_cpu_loop_built_from_it():
    from minieager.kernels.cpu.loops import elementwise, scalar
    templates = {elementwise._one.__code__, elementwise._two.__code__, elementwise._three.__code__}
    for formula in formulas.FORMULAS:
        name = formula.__name__
        compiled = getattr(scalar, name)
        assert compiled.py_func.__code__ is formula.__code__          # the formula itself, compiled
        assert compiled.py_func.__globals__["math"].__name__.endswith("loops.cpumath")
        if name == "identity":
            continue
        loop = getattr(elementwise, name)
        assert loop.py_func.__code__ in templates
        assert loop.py_func.__globals__["formula"] is compiled
        assert loop.py_func.__code__.co_argcount == formula.__code__.co_argcount + 1   # + out


def test_the_cpu_kernels_run_every_loop():
    """Each elementwise op of the CPU kernel table runs the loop of its formula."""
    from minieager.kernels.cpu import elementwise as cpu
    loop_names = {op: cpu._LOOP_NAMES.get(op, op) for op in formulas.OPS if op not in ("bias_add", "cast")}
    assert {op: formulas.OPS[op].__name__ for op in loop_names} == loop_names


def test_a_loop_computes_its_formula():
    """The loop computes what the formula computes by hand, element for element (sigmoid, maximum)."""
    from minieager.kernels.cpu.loops import elementwise
    x = np.array([-30.0, -1.0, -0.0, 0.0, 0.5, 3.0, 40.0, np.nan])
    out = np.empty_like(x)
    elementwise.sigmoid(x, out)
    np.testing.assert_array_equal(out, [formulas.sigmoid(v) for v in x])
    elementwise.maximum(x, x[::-1].copy(), out)
    np.testing.assert_array_equal(out, [formulas.maximum(a, b) for a, b in zip(x, x[::-1])])


def test_a_second_process_loads_the_loops_from_the_cache():
    """Loops made by one template get cache files of their own (their __qualname__), and a new
    process loads them instead of compiling: run twice, the second run compiles nothing."""
    code = """
import json, numpy as np
from minieager.kernels.cpu.loops import elementwise as L
x = np.linspace(-3, 3, 1000); out = np.empty_like(x)
for name in ("negative", "sigmoid", "tanh"):
    getattr(L, name)(x, out)
L.add(x, x, out); L.add(x, 2.0, out); L.maximum(x, x, out)
loops = [L.negative, L.sigmoid, L.tanh, L.add, L.maximum]
print(json.dumps({"hits": sum(sum(l.stats.cache_hits.values()) for l in loops),
                  "misses": sum(sum(l.stats.cache_misses.values()) for l in loops)}))
"""
    for _ in range(2):
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout.splitlines()[-1]) == {"hits": 6, "misses": 0}


# ----------------------------------------------------------------------------- fused kernels
def test_every_fusible_op_is_a_call_of_its_formula():
    from minieager.engine import dtypes
    from minieager.engine.op import Op
    from minieager.graph.passes.fused import FUSIBLE, Member, generate_source
    assert FUSIBLE == set(formulas.OPS) - {"erf"}
    for op in sorted(FUSIBLE):
        formula = formulas.OPS[op]
        arity = formula.__code__.co_argcount - (op == "leaky_relu")
        attrs = {"alpha": 0.25} if op == "leaky_relu" else {}
        member = Member(Op(op, tuple("abc"[:arity])), tuple(range(arity)), attrs, dtypes.float32)
        source = generate_source([member], ["full"] * arity)
        operands = ", ".join([f"a{k}" for k in range(arity)] + (["float32(0.25)"] if attrs else []))
        # the formulas whose eager loops contract inside themselves: their copy compiled the same way
        name = formula.__name__ + ("_contracted" if formula.__name__ in formulas.CONTRACT else "")
        assert f"        v0 = float32({name}({operands}))\n" in source, source
        assert f"from minieager.kernels.cpu.loops.scalar import {name}\n" in source


# ----------------------------------------------------------------------------- CUDA
# Importing the CUDA kernels registers them: done in a process of its own, not in this one.
CUDA_REPORT = r"""
import json
from minieager.kernels import formulas
from minieager.kernels.cuda import elementwise as E
report = {"UNARY": E.UNARY, "BINARY": E.BINARY, "formula": {}, "built_from_it": {}, "math": {}}
for op in [*E.UNARY, *E.BINARY]:
    name = E.formula_name(op)
    device_function = getattr(E.f, name)
    report["formula"][op] = name
    report["built_from_it"][op] = device_function.py_func.__code__ is getattr(formulas, name).__code__
    report["math"][op] = device_function.py_func.__globals__["math"].__name__
print(json.dumps(report))
"""


@pytest.fixture(scope="module")
def cuda_report():
    pytest.importorskip("numba.cuda")
    out = subprocess.run([sys.executable, "-c", CUDA_REPORT], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.splitlines()[-1])


def test_every_cuda_op_is_its_formula_compiled_as_a_device_function(cuda_report):
    ops = [*cuda_report["UNARY"], *cuda_report["BINARY"]]
    assert len(ops) == 37
    assert cuda_report["formula"] == {op: "identity" if op == "identity" else formulas.OPS[op].__name__ for op in ops}
    assert all(cuda_report["built_from_it"].values())
    assert set(cuda_report["math"].values()) == {"minieager.kernels.cuda.devmath"}


def test_cuda_op_codes_branch_to_their_formulas(cuda_report):
    """``unary``/``binary`` in cuda/elementwise.py: branch k returns f.<formula of op k>(...) and nothing else."""
    tree = _tree(PACKAGE / "kernels" / "cuda" / "elementwise.py")
    for function, table in [("unary", cuda_report["UNARY"]), ("binary", cuda_report["BINARY"])]:
        (node,) = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == function]
        branches = {}
        for statement in node.body[1:]:                        # after the docstring
            if isinstance(statement, ast.If):
                code, (returned,) = statement.test.comparators[0].value, statement.body
            else:                                              # the last op: no test
                code, returned = len(table) - 1, statement
            call = returned.value
            assert isinstance(call, ast.Call) and ast.unparse(call.func).startswith("f."), ast.unparse(returned)
            branches[code] = call.func.attr
        assert branches == {code: cuda_report["formula"][op] for op, code in table.items()}


def test_the_contracted_copies_are_the_formulas_compiled_as_their_eager_loops():
    from minieager.kernels.cpu.loops import elementwise, scalar
    assert elementwise.CONTRACT == formulas.CONTRACT
    for name in formulas.CONTRACT:
        copy = getattr(scalar, f"{name}_contracted")
        assert copy.py_func.__code__ is getattr(formulas, name).__code__
        assert copy.targetoptions["fastmath"] == getattr(elementwise, name).targetoptions["fastmath"]
        assert not copy.targetoptions.get("inline")       # compiled apart: its flag stays its own
