"""``me.contrib``: the TF 1.x ``tf.contrib`` names the eager guide uses: ``tfe = me.contrib.eager`` and
``me.contrib.summary`` (which is ``me.summary``)."""
from .. import summary  # noqa: F401
from . import eager  # noqa: F401


def __getattr__(name):
    from .._hints import missing
    raise missing(__name__, name)
