"""The object graph a Checkpoint saves: every Variable reachable from its root, named by a path.

An object is *trackable* if it is a Variable or has ``_checkpoint_dependencies()``, which returns
its children as an ordered list of ``(name, child)`` pairs; a child may also be a list or dict of
trackables (named by index or key). A path joins the names from the root: "model/dense/kernel".

The walk is breadth first and visits each object once, so an object reachable twice (a shared
layer) is saved once, under its shortest path. Optimizer slot variables (Adam's m and v...) belong to
a model variable, so they are named after it, "<optimizer>/.slots/<variable path>/<slot name>": that
name does not depend on the order in which the optimizer happened to create them. Optimizers list them
with ``_slot_variables()``, as (variable, slot name, slot variable) triples, and create them for a list
of variables with ``build(var_list)``.
"""
import collections

from ..autodiff.variable import Variable
from ..tracking import flatten_trackables


def _slots(obj):
    return obj._slot_variables() if hasattr(obj, "_slot_variables") else []


def slots_path(optimizer_path, variable_path):
    """Where an optimizer's slots for one variable are saved: "<optimizer>/.slots/<variable path>"."""
    return f"{optimizer_path}/.slots/{variable_path}"


def walk(root):
    """``({path: Variable}, {path: object})`` for everything reachable from ``root`` (not included)."""
    variables, objects, seen = {}, {}, {id(root)}
    queue = collections.deque([("", root)])
    while queue:
        path, obj = queue.popleft()
        slot_ids = {id(slot) for _, _, slot in _slots(obj)}      # named below, after their variables
        for name, child in obj._checkpoint_dependencies():
            for child_path, node in flatten_trackables(f"{path}/{name}" if path else str(name), child):
                if id(node) in seen or id(node) in slot_ids:
                    continue
                seen.add(id(node))
                if isinstance(node, Variable):
                    variables[child_path] = node
                else:
                    objects[child_path] = node
                    queue.append((child_path, node))
    path_of = {id(v): p for p, v in variables.items()}
    for obj_path, obj in list(objects.items()):
        for var, slot_name, slot in _slots(obj):
            if id(var) in path_of and id(slot) not in seen:     # a slot of an unsaved variable is not saved
                seen.add(id(slot))
                variables[f"{slots_path(obj_path, path_of[id(var)])}/{slot_name}"] = slot
    return variables, objects
