"""What crosses the sandbox's wall (course/wire.py) and how the grader scores it (course/judge.py).

The learner's side can send anything; these tests send the worst of it: forged outcomes, pickles,
object arrays, malformed arrays, answers of the wrong form. None may score, and none may crash the grader.
"""
import base64
import io
import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import minieager as me
from course import judge, spec, wire
from course.expect import expect_equal


def test_tensors_and_arrays_cross_as_arrays_of_their_dtype():
    sent = {"t": me.constant([[1.5, 2.0]]), "scalar": np.float32(2.5), "zero_d": np.array(3, dtype=np.int64),
            "shape": (4, 1), "flag": True, "none": None, "nan": float("nan")}
    got = wire.loads(wire.dumps(sent))
    assert got["t"].dtype == np.float32 and got["t"].tolist() == [[1.5, 2.0]]
    assert got["zero_d"].shape == () and got["zero_d"].dtype == np.int64
    assert got["scalar"] == 2.5 and got["shape"] == [4, 1] and got["flag"] is True and got["none"] is None
    assert np.isnan(got["nan"])


@pytest.mark.parametrize("value, named", [(object(), "a object"), (np.array([object()]), "dtype object"),
                                          ({1: 2}, "keys are not all strings"), (lambda: 1, "a function"),
                                          ({wire.ARRAY_KEY: "x"}, "reserved key")])
def test_what_is_not_plain_data_is_refused_by_name(value, named):
    with pytest.raises(wire.WireError, match=named):
        wire.to_plain(value)


def test_an_array_holding_a_pickle_is_refused_on_arrival():
    buffer = io.BytesIO()
    np.save(buffer, np.array([{"x": 1}], dtype=object), allow_pickle=True)
    forged = {wire.ARRAY_KEY: base64.b64encode(buffer.getvalue()).decode()}
    with pytest.raises(ValueError, match="allow_pickle=False"):
        wire.from_plain(forged)


@settings(max_examples=50, deadline=None)
@given(st.recursive(
    st.none() | st.booleans() | st.integers(-2**40, 2**40) | st.floats(allow_nan=False) | st.text(max_size=5)
    | hnp.arrays(st.sampled_from([np.float32, np.float64, np.int32, np.bool_]), hnp.array_shapes(min_dims=0, max_dims=3)),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3), max_leaves=8))
def test_plain_data_survives_the_trip(value):
    def same(a, b):
        if isinstance(a, np.ndarray):
            return isinstance(b, np.ndarray) and a.dtype == b.dtype and np.array_equal(a, b, equal_nan=True)
        if isinstance(a, dict):
            return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
        if isinstance(a, list):
            return len(a) == len(b) and all(map(same, a, b))
        return a == b
    assert same(value, wire.loads(wire.dumps(value)))


@spec.check("broadcast_shape", points=2)
class Sums:
    cases = [{"a": k} for k in range(10)]

    def probe(ns, a):
        return ns["f"](a)

    def judge(got, a):
        expect_equal(got, a + 1, f"f({a})")


def test_nine_cases_of_ten_earn_nine_tenths_of_the_points():
    replies = [{"value": a + 1} for a in range(9)] + [{"value": 0}]
    scored = judge.score(Sums, Sums.cases(None), replies)
    assert scored.earned == pytest.approx(1.8)
    assert [r.outcome for r in scored.cases] == ["passed"] * 9 + ["failed"]
    assert scored.cases[-1].message == "f(9): expected 10, got 0."


@pytest.mark.parametrize("reply, outcome", [
    ({"outcome": "passed"}, "error"),                        # a forged outcome is not a value
    ({"outcome": "passed", "message": "trust me"}, "error"),
    ("passed", "error"), (None, "error"), ([1], "error"),
    ({"value": "eleven"}, "failed"),                          # the wrong form fails, and says so
    ({"value": {wire.ARRAY_KEY: "!!not base64!!"}}, "error"),
    ({"value": {wire.ARRAY_KEY: base64.b64encode(b"\x93NUMPY garbage").decode()}}, "error"),
    ({"outcome": "not done", "message": "x" * 10_000}, "not done"),
])
def test_a_reply_of_any_form_scores_nothing_and_crashes_nothing(reply, outcome):
    got, message = judge.judge_case(Sums, {"a": 1}, reply)
    assert got == outcome
    assert len(message) <= judge.MAX_MESSAGE + 10


def test_the_probe_runs_from_its_source_with_only_the_probe_names():
    @spec.check("broadcast_shape")
    class UsesAModuleName:
        cases = [{}]

        def probe(ns):
            return json.dumps({})          # json is not among the probe's names

        def judge(got):
            pass
    run = spec.compile_probe(UsesAModuleName.probe_source())
    from course.probe import reply
    assert reply(run, {}, {}) == {"outcome": "error", "message": "your code raised NameError: name 'json' is not defined"}


def test_a_check_without_its_three_parts_is_refused():
    with pytest.raises(TypeError, match="check Half of 'broadcast_shape' lacks judge"):
        @spec.check("broadcast_shape")
        class Half:
            cases = []

            def probe(ns):
                return 1
