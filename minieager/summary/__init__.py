"""``me.summary``: TensorBoard summaries, as ``tf.summary`` (and the guide's ``tf.contrib.summary`` names).

    writer = me.summary.create_file_writer("logs")
    with writer.as_default(), me.summary.record_summaries_every_n_global_steps(10):
        me.summary.scalar("loss", loss)              # step: the global step

View the logs with ``tensorboard --logdir logs``, or in a notebook with ``me.summary.plot("logs")``.
"""
from .ops import histogram, image, scalar, text  # noqa: F401
from .plot import plot, read_scalars  # noqa: F401
from .record import (  # noqa: F401
    always_record_summaries, never_record_summaries, record_if, record_summaries_every_n_global_steps,
    should_record_summaries)
from .writer import SummaryWriter, create_file_writer, flush  # noqa: F401


def __getattr__(name):
    from .._hints import missing
    raise missing(__name__, name)   # a TF name minieager lacks: say what to use instead
