"""``me.GradientTape``: records the ops run on watched tensors, then plays them backwards.

    with me.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    tape.gradient(y, x)        # 2x

While a tape is open it sits in its thread's ``engine.recording.this_thread.observers``; every op
offers itself to ``_observe``, and the tape keeps a ``TapeRecord`` when one of the op's inputs is watched.
``tape.records`` is the tape's introspection API (see docs/architecture.md).
"""
import contextlib
import enum
import warnings
from typing import NamedTuple

from .. import nest
from ..engine import recording
from ..engine.scope import open_scopes
from ..engine.tensor import Tensor
from ..errors import InvalidArgumentError
from ..ops import creation, indexing, shape as shape_ops
from ..ops.creation import convert_to_tensor, zeros_like
from .backprop import backward
from .variable import Variable


class UnconnectedGradients(enum.Enum):
    """What ``tape.gradient`` returns for a source the target does not depend on."""
    NONE = "none"
    ZERO = "zero"


class TapeRecord(NamedTuple):
    """One recorded op call: what ran, on which tensors, and the rule that differentiates it.

    The tape makes one entry per recorded op, so it keeps each as a plain tuple of the first six
    fields below (a named tuple costs a few times more to build); ``tape.records`` names them and
    adds the position. The backward pass reads both alike, by position.
    """

    op: object                 # the Op that ran (or the custom-gradient function's)
    inputs: tuple              # the input Tensors
    outputs: tuple             # the output Tensors
    attrs: dict                # the op's attributes: axis=, perm=, ...
    variable_versions: tuple   # ((variable, its version when read), ...)
    scope: str                 # the layer running this op, e.g. "sequential/dense" ("" if none)
    index: int                 # position on the tape: 0, 1, 2, ...

    op_name = property(lambda self: self.op.name, doc="The primitive's name, e.g. 'multiply'.")
    rule = property(lambda self: self.op.rule, doc="The gradient rule in words, one line per input.")
    input_ids = property(lambda self: tuple(t._id for t in self.inputs))
    output_ids = property(lambda self: tuple(t._id for t in self.outputs))
    is_custom = property(lambda self: getattr(self.op, "is_custom", False))

    def __repr__(self):
        ins = ", ".join(f"t{i}" for i in self.input_ids)
        outs = ", ".join(f"t{i}" for i in self.output_ids)
        return f"<TapeRecord #{self.index} {self.op_name}({ins}) -> {outs}>"


class GradientTape:
    """Record operations for automatic differentiation.

    persistent                 allow several ``gradient`` calls (the records are kept)
    watch_accessed_variables   watch every trainable Variable an op reads inside the block
    """

    def __init__(self, persistent=False, watch_accessed_variables=True):
        self._persistent = persistent
        self._watch_accessed = watch_accessed_variables
        self._records = []
        self._watched_ids = set()
        self._watched = []           # watched tensors and variables, in the order they were watched
        self._recording = False
        self._used = False
        self._debuggers = []         # tape debuggers following this tape live (see minieager.debugger)

    # ---- the context ------------------------------------------------------------------
    def __enter__(self):
        if any(o is self for o in recording.this_thread.observers):
            raise ValueError(
                "Tape is still recording: this GradientTape is already open, and a tape cannot be entered "
                "again inside its own `with` block (as in TF). Use a second tape for nested derivatives.")
        recording.add_observer(self)
        self._recording = True
        return self

    def __exit__(self, *exc):
        self._recording = False
        try:
            recording.remove_observer(self)
        except ValueError:   # already removed (a debugger's trace may have paused the observers)
            pass
        return False

    @contextlib.contextmanager
    def stop_recording(self):
        """Ops run inside this block are not recorded on this tape."""
        was, self._recording = self._recording, False
        try:
            yield
        finally:
            self._recording = was

    def reset(self):
        """Forget every record and watched tensor, as if the tape had just been opened."""
        self._records, self._watched_ids, self._watched, self._used = [], set(), [], False

    # ---- what is watched --------------------------------------------------------------
    def watch(self, tensor):
        """Watch a tensor (or a nested list/tuple/dict of them) so ops on it are recorded."""
        for t in (tensor,) if isinstance(tensor, Tensor) else nest.flatten(tensor):
            if not isinstance(t, Tensor):     # ValueError, as TF's "Passed in object of type ..., not tf.Tensor"
                raise ValueError(f"tape.watch() takes tensors or variables, not {type(t).__name__}. "
                                 f"Convert it first with me.constant(...).")
            if not t._dtype.is_floating:
                warnings.warn(f"The dtype of the watched tensor must be floating (e.g. me.float32), got "
                              f"{t.dtype.name}: its gradient will be None.", stacklevel=2)
                continue
            self._watch_one(t)

    def _watch_one(self, t):
        if t._id not in self._watched_ids:
            self._watched_ids.add(t._id)
            self._watched.append(t)

    def watched_variables(self):
        """The variables this tape watches, in the order it started watching them."""
        return tuple(t for t in self._watched if isinstance(t, Variable))

    @property
    def records(self):
        """The recorded ops, oldest first (a list of TapeRecord): the tape's introspection API."""
        return [TapeRecord(*entry, index) for index, entry in enumerate(self._records)]

    # ``tape.debugger()``, the tape debugger widget, is installed by minieager/__init__.py: the widgets
    # sit above every other layer, so the tape does not import them.

    # ---- recording (called by every op while the tape is open) ------------------------------
    def _observe(self, op, inputs, outputs, attrs):
        # Runs for every op while the tape is open, so the common case is kept short.
        if not self._recording:
            return
        watched, hit, versions = self._watched_ids, False, ()
        for t in inputs:
            if type(t) is not Tensor and isinstance(t, Variable):   # note its version, maybe watch it
                versions += ((t, t._version),)
                if t._id not in watched and self._watch_accessed and t._trainable and t._dtype.is_floating:
                    self._watch_one(t)
            if t._id in watched:
                hit = True
        if not hit or op.vjp is None:     # (an op without a gradient still watches what it read: max(vars), as TF)
            return
        self._records.append((op, inputs, outputs, attrs, versions, open_scopes[-1]))   # a TapeRecord, unnamed
        for out in outputs:
            if out._dtype.is_floating:
                watched.add(out._id)
        if self._debuggers:
            record = TapeRecord(*self._records[-1], len(self._records) - 1)
            for debugger in self._debuggers:
                debugger._on_record(record)

    # ---- playing it backwards ---------------------------------------------------------
    def _flat_sources(self, sources):
        flat = nest.flatten(sources)
        for s in flat:
            if not isinstance(s, Tensor):
                raise TypeError(
                    f"tape.gradient: every source must be a Tensor or Variable, got {type(s).__name__} "
                    f"({s!r}). Watch a tensor with tape.watch(x) and pass that tensor.")
        return flat

    def _watched_only(self, sources):
        # A source this tape never watched (nor computed) has no gradient, even if a recorded op read it.
        return [s for s in sources if s._id in self._watched_ids]

    def _check_usable(self):
        if self._used:
            raise RuntimeError(
                "A non-persistent GradientTape can only be used to compute one set of gradients, and this "
                "one already has. Use me.GradientTape(persistent=True) to call gradient() several times.")

    def gradient(self, target, sources, output_gradients=None, unconnected_gradients=UnconnectedGradients.NONE):
        """d(sum of target)/d(source) for each source, in the same structure as ``sources``."""
        self._check_usable()
        zero_if_unconnected = UnconnectedGradients(unconnected_gradients) is UnconnectedGradients.ZERO
        flat_sources = self._flat_sources(sources)
        targets = nest.flatten(target)
        for t in targets:
            if not isinstance(t, Tensor):
                raise TypeError(f"tape.gradient: the target must be a Tensor, got {type(t).__name__}.")
        target_grads = self._output_gradients(targets, output_gradients)
        if not self._persistent:
            self._recording = False     # as in TF: a used non-persistent tape records nothing more
        # Called inside its own context, a persistent tape is still recording, so it records the backward
        # ops (as TF does) and can differentiate this gradient again.
        # A source that is itself a target has gradient ones (or its output_gradients), watched or not, as in TF:
        # tape.gradient(v, v) is ones even for a variable the block never read.
        target_ids = {t._id for t in targets}
        wanted = [s for s in flat_sources if s._id in self._watched_ids or s._id in target_ids]
        grads = backward(self._records, targets, target_grads, wanted)
        if not self._persistent:
            self._used = True
            self._records = []      # frees every intermediate nothing else holds
        results = []
        for s in flat_sources:
            g = grads.get(s._id) if s._dtype.is_floating else None
            if g is None and zero_if_unconnected and s._dtype.is_floating:
                g = zeros_like(s)
            results.append(g)
        if isinstance(sources, Tensor):
            return results[0]
        return nest.pack_sequence_as(sources, results)

    @staticmethod
    def _output_gradients(targets, output_gradients):
        if output_gradients is None:
            return [None] * len(targets)
        given = nest.flatten(output_gradients)
        if len(given) != len(targets):
            raise InvalidArgumentError(
                f"tape.gradient: got {len(given)} output_gradients for {len(targets)} targets.")
        out = []
        for t, g in zip(targets, given):
            if g is None:
                out.append(None)
                continue
            g = convert_to_tensor(g, dtype=t.dtype)
            if g.shape != t.shape:
                raise InvalidArgumentError(
                    f"tape.gradient: output_gradients must have the target's shape {tuple(t.shape)}, "
                    f"got {tuple(g.shape)}.")
            out.append(g)
        return out

    def jacobian(self, target, sources, unconnected_gradients=UnconnectedGradients.NONE,
                 parallel_iterations=None, experimental_use_pfor=True):
        """The full Jacobian of ``target`` for each source: shape ``target.shape + source.shape``.

        ``sources`` is a tensor or a nested list/dict of them (the result has the same structure, as
        in TF). One backward pass per element of ``target``, for all sources at once.
        ``parallel_iterations`` and ``experimental_use_pfor`` are accepted for TF's signature; the rows
        are always computed one after another.
        """
        self._check_usable()
        zero_if_unconnected = UnconnectedGradients(unconnected_gradients) is UnconnectedGradients.ZERO
        flat = self._flat_sources(sources)
        rows = [[] for _ in flat]          # rows[k]: the gradient of each target element for source k
        n = target.shape.num_elements()
        for i in range(n):
            onehot = creation.one_hot_flat(i, n, target.shape, target.dtype)
            with self.stop_recording():
                grads = backward(self._records, [target], [onehot], self._watched_only(flat))
            for k, s in enumerate(flat):
                rows[k].append(grads.get(s._id))
        if not self._persistent:
            self._used, self._records = True, []
        results = []
        for s, source_rows in zip(flat, rows):
            shape = tuple(target.shape) + tuple(s.shape)
            if n and any(g is not None for g in source_rows):
                filled = [creation.zeros_like(s) if g is None else g for g in source_rows]
                results.append(shape_ops.reshape(shape_ops.stack(filled), shape))
            else:       # the target does not depend on this source (or has no elements)
                results.append(creation.zeros(shape, dtype=s.dtype) if zero_if_unconnected or not n else None)
        return results[0] if isinstance(sources, Tensor) else nest.pack_sequence_as(sources, results)

    def batch_jacobian(self, target, source, unconnected_gradients=UnconnectedGradients.NONE,
                       parallel_iterations=None, experimental_use_pfor=True):
        """Per-example Jacobians: target (B, ...) and source (B, ...) -> (B, target..., source...)."""
        for what, t in (("target", target), ("source", source)):
            if t.ndim < 2:      # as TF: each example's target and source must be at least a vector
                raise ValueError(
                    f"batch_jacobian: the {what} must have rank at least 2 (a batch of vectors), got shape "
                    f"{tuple(t.shape)}. For a batch of scalars, use tape.gradient (or reshape to (B, 1)).")
        if target.shape[0] != source.shape[0]:
            raise ValueError(
                f"batch_jacobian: need the first dimension of the target shape {tuple(target.shape)} and "
                f"the source shape {tuple(source.shape)} to match (the batch).")
        full = self.jacobian(target, source, unconnected_gradients)      # (B, t..., B, s...)
        if full is None:
            return None
        b, t_rank = target.shape[0], target.ndim
        return shape_ops.stack([indexing.getitem(full, (i,) + (slice(None),) * (t_rank - 1) + (i,))
                                for i in range(b)])
