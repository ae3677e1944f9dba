"""``me.train``: object-based checkpoints, plus the TF 1 optimizer spellings the guide uses.

``GradientDescentOptimizer``, ``AdamOptimizer``, ``get_or_create_global_step`` & co. live in
``me.optimizers``; they are re-exported here under their ``tf.train`` names.
"""
from .checkpoint import Checkpoint, RestoreStatus, latest_checkpoint, list_variables  # noqa: F401
from .manager import CheckpointManager  # noqa: F401
from ..nn.optimizers import (  # noqa: F401,E402
    AdagradOptimizer, AdamOptimizer, GradientDescentOptimizer, MomentumOptimizer, RMSPropOptimizer,
    get_global_step, get_or_create_global_step)
