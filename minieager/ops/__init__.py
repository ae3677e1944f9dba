"""The op set, by family. Each primitive is an ``engine.op.Op``; the rest are compositions.

Importing any op module first installs Python's operators onto ``Tensor`` (``operators.py``), so a
tensor has ``+``, ``[]`` and ``@`` wherever the ops exist.
"""
from . import operators  # noqa: F401
