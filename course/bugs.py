"""Three small ops for lesson 07's "find the bug" exercise. One of their gradient rules is wrong on
purpose: its rule text (what the tape debugger shows) is right, its VJP code is not.

    from course.bugs import model       # model(x) = halve(cube(softplus(x)))

Please do not read this file before you have found the bug with the tools.
"""
import hashlib

import numpy as np

import minieager as me
from minieager.extend import Op, register_kernel


@register_kernel("course_softplus", "cpu")
def _softplus_kernel(x):
    return np.logaddexp(0, x)


@register_kernel("course_cube", "cpu")
def _cube_kernel(x):
    return x * x * x


@register_kernel("course_halve", "cpu")
def _halve_kernel(x):
    return x / 2


course_softplus = Op("course_softplus", ("x",), "log(1 + exp(x))", ("dy * sigmoid(x)",),
                     vjp=lambda dy, x, out: (dy * me.sigmoid(-x),))
course_cube = Op("course_cube", ("x",), "x^3", ("dy * 3 x^2",), vjp=lambda dy, x, out: (dy * 3 * x * x,))
course_halve = Op("course_halve", ("x",), "x / 2", ("dy / 2",), vjp=lambda dy, x, out: (dy / 2,))

OPS = {op.name: op for op in (course_softplus, course_cube, course_halve)}
# The buggy op's name, hashed: the checks compare with it, and a learner browsing this module with
# dir() or help() does not read the answer (the exercise is to find it with the tools).
BUGGY_SHA256 = "5f25cad6ff57b84817a3b5db182ef6fa9ea1c4e5d834fbde319a8c94ce5906d9"


def is_buggy(name):
    """Whether ``name`` is the op with the planted bug."""
    return isinstance(name, str) and hashlib.sha256(name.encode()).hexdigest() == BUGGY_SHA256


def model(x):
    """halve(cube(softplus(x))): three ops, one of them with a wrong gradient."""
    return course_halve(course_cube(course_softplus(x)))
