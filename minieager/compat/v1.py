"""``me.compat.v1``: TF 1 names a learner meets in older code.

In eager execution a variable holds its value from the moment it is made, so the initializers
that graph-mode TF 1 had to run are no-ops, as they are in TF 2's eager mode (both return None).
"""


def global_variables_initializer():
    """Does nothing and returns None: eager variables are initialized when they are created."""
    return None


def local_variables_initializer():
    """Does nothing and returns None: eager variables are initialized when they are created."""
    return None


initialize_all_variables = global_variables_initializer
