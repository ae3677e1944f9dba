"""minieager's packages form layers, and each imports only from the layers below it.

    machine < kernels < engine < ops < autodiff < debugger < graph < nn/data/train/summary
            < config/widgets/keras and the package's front door (minieager/__init__.py)

The imports are read from the source with ``ast`` (function-local ones too: an import inside a
function is still a dependency, only a later one), so an upward import fails here by name before
it can knot the packages into a circle again. docs/architecture.md draws the same layers.
"""
import ast
import collections
import pathlib

import pytest

PACKAGE = pathlib.Path(__file__).resolve().parents[1] / "minieager"

# Lowest first. A top-level module or subpackage of minieager belongs to the layer that names it.
LAYERS = [
    ("machine", "errors", "_hints", "nest"),  # the machine's facts, the error classes, helpers importing nothing of ours
    ("kernels",),
    ("engine",),
    ("ops",),
    ("autodiff", "tracking", "module"),
    ("debugger",),
    ("graph",),
    ("nn", "data", "train", "summary"),
    ("config", "widgets", "keras", "debugging", "linalg", "math", "test", "testing", "extend", "warmup",
     "saved_model", "compat", "contrib", "dtypes", "io", "__init__"),
]
LEVEL = {part: level for level, parts in enumerate(LAYERS) for part in parts}


def module_name(path):
    """minieager/ops/shape.py -> 'minieager.ops.shape'; a package's __init__.py -> the package."""
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def part_of(module):
    """The layer part a module belongs to: 'minieager.ops.shape' -> 'ops', 'minieager' -> '__init__'."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def imported_modules(module, source=None):
    """(line, module of ours it imports) for every import in ``module``'s source, at any depth."""
    path = MODULES.get(module)
    package = module if path is not None and path.name == "__init__.py" else module.rsplit(".", 1)[0]
    for node in ast.walk(ast.parse(path.read_text() if source is None else source)):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package
            for _ in range(node.level - 1):
                base = base.rsplit(".", 1)[0]
            source = (f"{base}.{node.module}" if node.module else base) if node.level else node.module
            # `from . import nest` imports the module minieager.nest; `from .x import f` imports x.
            targets = [f"{source}.{a.name}" if f"{source}.{a.name}" in MODULES else source for a in node.names]
        else:
            continue
        for target in targets:
            while target not in MODULES and "." in target:
                target = target.rsplit(".", 1)[0]
            if target in MODULES and target != module:
                yield node.lineno, target


IMPORTS = {m: sorted(set(imported_modules(m))) for m in MODULES}


def test_every_module_has_a_layer():
    unplaced = sorted({part_of(m) for m in MODULES} - set(LEVEL))
    assert not unplaced, f"add these parts of minieager to a layer in LAYERS: {unplaced}"


def test_no_module_imports_from_a_layer_above_it():
    upward = [f"{MODULES[m].relative_to(PACKAGE.parent)}:{line} imports {target} "
              f"({part_of(m)} is below {part_of(target)})"
              for m, imports in IMPORTS.items() for line, target in imports
              if LEVEL[part_of(target)] > LEVEL[part_of(m)]]
    assert not upward, "upward imports:\n" + "\n".join(upward)


def strongly_connected(graph):
    """Tarjan's algorithm, iteratively: the groups of modules that import each other in a circle."""
    index, low, on_stack, stack, groups, counter = {}, {}, set(), [], [], 0
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(graph[root]))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(graph[child])))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                groups.append(sorted(group))
    return groups


def test_no_circle_spans_two_packages():
    graph = collections.defaultdict(list, {m: [t for _, t in imports] for m, imports in IMPORTS.items()})
    spanning = [group for group in strongly_connected(graph) if len({part_of(m) for m in group}) > 1]
    assert not spanning, "import circles across packages:\n" + "\n".join(" -> ".join(g) for g in spanning)


@pytest.mark.parametrize("module, source, expected", [
    ("minieager.ops.fake", "def f():\n    from ..graph.function import TensorSpec\n", "minieager.graph.function"),
    ("minieager.kernels.cpu.fake", "from ... import config\n", "minieager.config"),
    ("minieager.ops.fake", "import minieager.autodiff.tape as t\n", "minieager.autodiff.tape"),
    ("minieager.ops.fake", "from .. import nest\n", "minieager.nest"),
])
def test_imports_are_resolved_at_any_depth(module, source, expected):
    """The reader finds a function-local import, counts the dots of a relative one, and reads an
    absolute one; otherwise the tests above would pass on anything."""
    assert [t for _, t in imported_modules(module, source)] == [expected]
