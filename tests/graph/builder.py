"""Build small graphs by hand, node by node, for the pass tests."""
import numpy as np

import minieager as me
from minieager.graph.ir import Graph, Node


class Builder:
    """``b = Builder(); x = b.placeholder("x", (3,)); y = b.call(op, x, c); g = b.graph(y)``."""

    def __init__(self):
        self.nodes, self.inputs, self.count = [], [], 0

    def _add(self, node):
        self.nodes.append(node)
        return node

    def placeholder(self, name, shape, dtype=me.float32):
        node = self._add(Node("placeholder", name, shape=shape, dtype=dtype))
        self.inputs.append(node)
        return node

    def constant(self, value, dtype=me.float32):
        value = np.asarray(value, dtype.np_dtype)
        self.count += 1
        return self._add(Node("constant", f"c{self.count}", shape=value.shape, dtype=dtype, value=value))

    def variable(self, variable):
        self.count += 1
        return self._add(Node("variable", f"v{self.count}", shape=tuple(variable.shape), dtype=variable.dtype,
                              value=variable))

    def call(self, op, *inputs, out_shape=None, out_dtype=None, effect=False, **attrs):
        """A call of the eager ``op``; shape and dtype default to the elementwise broadcast of the inputs."""
        self.count += 1
        shape = out_shape if out_shape is not None else np.broadcast_shapes(*[i.shape for i in inputs])
        return self._add(Node("call", f"%{self.count}", op=op, inputs=inputs, attrs=attrs, shape=shape,
                              dtype=out_dtype or inputs[-1].dtype, effect=effect))

    def graph(self, *outputs):
        return Graph(self.nodes, self.inputs, outputs)


def values(graph, *arrays):
    """The graph's outputs on ``arrays``, as NumPy arrays."""
    from minieager.graph.ir import run
    return [t.numpy() for t in run(graph, *arrays)]


def calls(graph):
    return [node for node in graph.nodes if node.kind == "call"]
