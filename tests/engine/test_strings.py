"""String tensors and me.strings (issue 28). Expected values are TensorFlow 2.21's for the same calls."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import minieager as me
from minieager.errors import DTypeError, InvalidArgumentError

CPU_0 = "/job:localhost/replica:0/task:0/device:CPU:0"   # tensor.device, as TF names it


# ---- the dtype: constants, printing, shapes, indexing, equality --------------------------------------
def test_string_constants_hold_utf8_bytes_and_print_as_tf():
    s = me.constant("hello")
    assert s.dtype == me.string and s.dtype is me.dtypes.string and s.shape == ()
    assert s.numpy() == b"hello"                           # TF: numpy() of a scalar string is bytes
    assert str(s) == "me.Tensor(b'hello', shape=(), dtype=string)"
    assert repr(s) == "<me.Tensor: shape=(), dtype=string, numpy=b'hello'>"
    t = me.constant([["a", "bc"], ["déf", ""]])
    assert t.shape == (2, 2) and t.numpy().dtype == object
    assert t.numpy()[1, 0] == "déf".encode("utf-8")
    assert me.as_dtype("string") is me.string and me.as_dtype(object) is me.string    # TF: tf.as_dtype(object)
    assert me.constant(b"raw").numpy() == b"raw"
    assert me.constant(np.array(["x", "y"])).numpy().tolist() == [b"x", b"y"]


def test_indexing_shapes_and_moving_ops_on_strings():
    t = me.constant(["a", "bc", "déf"])
    assert t[1].numpy() == b"bc" and t[1].dtype == me.string
    assert t[::-1].numpy().tolist() == [b"d\xc3\xa9f", b"bc", b"a"]
    assert len(t) == 3 and [x.numpy() for x in t] == [b"a", b"bc", b"d\xc3\xa9f"]
    assert me.reshape(t, (3, 1)).shape == (3, 1)
    assert me.concat([t, t], 0).shape == (6,) and me.stack([t, t]).shape == (2, 3)
    assert me.gather(t, [2, 0]).numpy().tolist() == [b"d\xc3\xa9f", b"a"]
    assert me.where([True, False, True], t, me.constant(["x", "y", "z"])).numpy().tolist() == [b"a", b"y", b"d\xc3\xa9f"]
    assert me.shape(t).numpy().tolist() == [3] and me.size(t).numpy() == 3


def test_string_equality_is_elementwise_as_tf():
    t = me.constant(["a", "bc", "a"])
    assert (t == "a").numpy().tolist() == [True, False, True]
    assert (t != me.constant("bc")).numpy().tolist() == [True, False, True]
    assert me.equal(t, me.constant([["a"], ["bc"]])).shape == (2, 3)      # broadcasting, as numbers
    with pytest.raises(InvalidArgumentError, match="equal: shapes"):
        me.equal(t, me.constant(["a", "b"]))


@pytest.mark.parametrize("op", [lambda t: t + t, lambda t: me.reduce_sum(t), lambda t: me.cast(t, me.int32),
                                lambda t: me.exp(t), lambda t: t < t, lambda t: me.argsort(t)],
                         ids=["add", "reduce_sum", "cast", "exp", "less", "argsort"])
def test_ops_on_numbers_refuse_strings_by_name(op):
    # A NumPy kernel would concatenate bytes in a sum, and a numba loop cannot take them: a named error.
    with pytest.raises(DTypeError, match=r"^\w+: string tensors are not numbers.*me.strings.to_number"):
        op(me.constant(["a", "b"]))


def test_strings_and_numbers_never_convert_implicitly():
    with pytest.raises(DTypeError, match="cannot make a int32 tensor from string values.*to_number"):
        me.constant("1", me.int32)
    with pytest.raises(InvalidArgumentError, match="mixes strings with int values"):
        me.constant(["a", 1])
    with pytest.raises(InvalidArgumentError, match=r"add: .*does not fit in int32.*as_string"):
        me.constant(1) + "a"
    with pytest.raises(InvalidArgumentError, match="equal: the first argument is a string tensor but the second is int32"):
        me.equal(me.constant("a"), me.constant(1))


def test_string_tensors_are_never_watched_and_stay_on_the_cpu():
    t = me.constant(["a"])
    with me.GradientTape() as tape:
        with pytest.warns(UserWarning, match="got string: its gradient will be None"):
            tape.watch(t)
        y = t == "a"
    assert tape.gradient(me.cast(y, me.float32), t) is None
    assert not tape.records
    assert t.device == CPU_0


# ---- me.strings -----------------------------------------------------------------------------------
def test_length_lower_upper_strip():
    t = me.constant(["a", "bc", "déf"])
    assert me.strings.length(t).numpy().tolist() == [1, 2, 4]                       # TF: bytes
    assert me.strings.length(t, unit="UTF8_CHAR").numpy().tolist() == [1, 2, 3]
    assert me.strings.length(t).dtype == me.int32
    assert me.strings.upper(t).numpy().tolist() == [b"A", b"BC", "DéF".encode()]        # TF: ASCII only
    assert me.strings.upper(t, encoding="utf-8").numpy().tolist() == [b"A", b"BC", "DÉF".encode()]
    assert me.strings.lower("AbC").numpy() == b"abc"
    assert me.strings.strip("  x y \n").numpy() == b"x y"
    with pytest.raises(DTypeError, match="strings.length: input must be a string tensor, got float32"):
        me.strings.length(me.constant([1.0]))


def test_join_reduce_join_split():
    t = me.constant(["a", "bc"])
    assert me.strings.join([t, "x"], separator="-").numpy().tolist() == [b"a-x", b"bc-x"]
    assert me.strings.reduce_join(t, separator=",").numpy() == b"a,bc"
    assert me.strings.reduce_join(me.constant([["a", "b"], ["c", "d"]]), axis=1).numpy().tolist() == [b"ab", b"cd"]
    assert me.strings.split("a b  c").numpy().tolist() == [b"a", b"b", b"c"]     # TF: whitespace runs
    assert me.strings.split("a,,b", sep=",").numpy().tolist() == [b"a", b"", b"b"]
    rows = me.strings.split(["Gray wolf", "Quick brown fox"])       # TF: a RaggedTensor; here a list
    assert [r.numpy().tolist() for r in rows] == [[b"Gray", b"wolf"], [b"Quick", b"brown", b"fox"]]
    assert me.strings.bytes_split("ab").numpy().tolist() == [b"a", b"b"]


def test_to_number_and_as_string():
    assert me.strings.to_number(["1.5", "2"]).numpy().tolist() == [1.5, 2.0]
    assert me.strings.to_number(["1.5"]).dtype == me.float32
    assert me.strings.to_number("7", me.int32).numpy() == 7
    with pytest.raises(InvalidArgumentError, match="StringToNumberOp could not correctly convert string: b'abc'"):
        me.strings.to_number(["1", "abc"])
    assert me.strings.as_string([1.5, 2.0]).numpy().tolist() == [b"1.500000", b"2.000000"]     # TF: %f
    assert me.strings.as_string(3).numpy() == b"3"
    assert me.strings.as_string(True).numpy() == b"true"
    assert me.strings.as_string(me.constant([1e10, 1e-7]), shortest=True).numpy().tolist() == [b"1e+10", b"1e-07"]
    assert me.strings.as_string(2.5, precision=1).numpy() == b"2.5"


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(-2**31, 2**31 - 1), min_size=1, max_size=5))
def test_as_string_then_to_number_round_trips_integers(values):
    back = me.strings.to_number(me.strings.as_string(me.constant(values, me.int64)), me.int64)
    assert back.numpy().tolist() == values


def test_format_regex_and_unicode():
    f = me.strings.format("x = {} and {}", [me.constant([1, 2]), me.constant(3.5)])
    assert f.numpy() == b"x = [1 2] and 3.5"                                    # TF's text
    assert me.strings.format("s = {}", [me.constant(["a", "bc"])]).numpy() == b's = ["a" "bc"]'
    with pytest.raises(InvalidArgumentError, match="the template has 1 placeholders"):
        me.strings.format("{}", [1, 2])
    assert me.strings.regex_full_match(["abc", "ab1"], "[a-z]+").numpy().tolist() == [True, False]
    assert me.strings.regex_replace("a1b22", r"\d+", "#").numpy() == b"a#b#"
    with pytest.raises(InvalidArgumentError, match="invalid regular expression"):
        me.strings.regex_full_match("a", "(")
    assert me.strings.unicode_decode("déf", "UTF-8").numpy().tolist() == [100, 233, 102]
    assert me.strings.unicode_decode("déf", "UTF-8").dtype == me.int32
    rows = me.strings.unicode_decode(["hé", "a"], "UTF-8")
    assert [r.numpy().tolist() for r in rows] == [[104, 233], [97]]
    assert me.strings.unicode_encode([100, 233], "UTF-8").numpy() == "dé".encode()


def test_missing_strings_names_get_the_hint():
    with pytest.raises(AttributeError, match="module 'me.strings' has no attribute 'substrr'"):
        me.strings.substrr


def test_unicode_split_and_io_decode_raw_as_the_tensor_guide():
    # TF's guide/tensor: bytes_split and decode_raw of "Duck", unicode_split of a Japanese word.
    assert me.io.decode_raw(me.constant("Duck"), me.uint8).numpy().tolist() == [68, 117, 99, 107]
    assert me.io.decode_raw(me.constant(["ab", "cd"]), me.uint8).numpy().tolist() == [[97, 98], [99, 100]]
    assert me.io.decode_raw(me.constant("abcd"), me.int32).numpy().tolist() == [1684234849]
    with pytest.raises(InvalidArgumentError, match="io.decode_raw: every string needs the same length"):
        me.io.decode_raw(me.constant(["a", "bc"]), me.uint8)
    chars = me.strings.unicode_split(me.constant("アヒル 🦆"), "UTF-8")
    assert [c.decode() for c in chars.numpy().tolist()] == ["ア", "ヒ", "ル", " ", "🦆"]
    assert me.strings.unicode_decode(me.constant("🦆"), "UTF-8").numpy().tolist() == [129414]


def test_string_ops_inside_function_run_on_each_calls_values():
    @me.function
    def f(s):
        return me.strings.length(s) + 1, s == "a", me.strings.to_number(me.strings.regex_replace(s, "[a-z]", "7"))

    n, eq, num = f(me.constant(["a", "bb"]))
    assert n.numpy().tolist() == [2, 3] and eq.numpy().tolist() == [True, False] and num.numpy().tolist() == [7, 77]
    n, eq, num = f(me.constant(["ccc", "a"]))             # the same trace, new strings
    assert n.numpy().tolist() == [4, 2] and num.numpy().tolist() == [777, 7]

    @me.function
    def parse(s):
        return me.strings.to_number(s)

    with pytest.raises(InvalidArgumentError, match="could not correctly convert string: b'x'"):
        parse(me.constant(["x"]))                         # checked when the graph runs

    @me.function
    def add(s):
        return s + s

    with pytest.raises(DTypeError, match="add: string tensors are not numbers"):
        add(me.constant(["a"]))                           # refused while tracing, as eagerly


def test_zeros_of_strings_are_empty_and_number_makers_refuse_the_string_dtype():
    s = me.constant(["a", "b"])
    assert me.zeros_like(s).numpy().tolist() == [b"", b""]             # TF: b''
    assert me.zeros([2], me.string).numpy().tolist() == [b"", b""]
    assert me.fill([2], "x").numpy().tolist() == [b"x", b"x"]
    with pytest.raises(DTypeError, match="ones_like: strings have no 1"):
        me.ones_like(s)
    for make, name in ((lambda: me.ones([1], me.string), "ones"), (lambda: me.eye(2, dtype=me.string), "eye"),
                       (lambda: me.one_hot([1], 2, dtype=me.string), "one_hot"),
                       (lambda: me.cast(me.constant(1), me.string), "cast")):
        with pytest.raises(DTypeError, match=rf"^{name}: dtype must be a number or bool dtype, got string"):
            make()


def test_a_string_variable_holds_and_assigns_strings():
    v = me.Variable(["a", "b"])
    assert v.dtype == me.string
    v.assign(["c", "d"])
    assert v.numpy().tolist() == [b"c", b"d"]
    with me.GradientTape() as tape:
        y = v == "c"
    assert tape.watched_variables() == ()                 # strings are never watched
    assert y.numpy().tolist() == [True, False]
