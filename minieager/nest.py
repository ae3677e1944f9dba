"""Flatten and rebuild nested structures (lists, tuples, dicts) of tensors.

``tape.gradient(loss, {"w": w, "b": [b1, b2]})`` returns gradients in the same structure
as its sources; these two helpers do the bookkeeping. Dicts are walked in sorted key order.

A *composite* is an object made of tensors that graph control flow carries as those tensors
(``me.TensorArray``: its buffer). It has ``_components()`` (its tensors, a list), their number
``_component_count()``, and ``_from_components(tensors)`` (a like object around other tensors). With
``expand_composites=True`` (what me.while_loop and me.cond use) a composite is flattened to its
components; otherwise it is a leaf.
"""


def is_composite(x):
    return hasattr(type(x), "_from_components")


def flatten(structure, expand_composites=False):
    """All the leaves of ``structure``, depth first: ``[a, (b, {"k": c})]`` -> ``[a, b, c]``."""
    if isinstance(structure, dict):
        return [leaf for key in sorted(structure) for leaf in flatten(structure[key], expand_composites)]
    if isinstance(structure, (list, tuple)):
        return [leaf for item in structure for leaf in flatten(item, expand_composites)]
    if expand_composites and is_composite(structure):
        return list(structure._components())
    return [structure]


def pack_sequence_as(structure, flat, expand_composites=False):
    """Put the leaves ``flat`` back into the shape of ``structure``."""
    leaves = iter(flat)

    def rebuild(node):
        if isinstance(node, dict):
            return {key: rebuild(node[key]) for key in sorted(node)}
        if isinstance(node, (list, tuple)):
            items = [rebuild(item) for item in node]
            if isinstance(node, tuple) and hasattr(node, "_fields"):   # namedtuple
                return type(node)(*items)
            return type(node)(items)
        if expand_composites and is_composite(node):
            return node._from_components([next(leaves) for _ in range(node._component_count())])
        return next(leaves)

    try:
        return rebuild(structure)
    finally:
        del rebuild   # it refers to itself: break that cycle so the leaves are freed now, not at the next gc


def map_structure(fn, structure):
    """``structure`` with ``fn`` applied to every leaf: ``map_structure(f, [a, (b,)])`` is ``[f(a), (f(b),)]``."""
    return pack_sequence_as(structure, [fn(leaf) for leaf in flatten(structure)])
