"""me.Module: names, scopes, the attribute walk (variables, submodules), checkpoints, me.function and the tape.

Every expected value below was checked against tf.Module (TensorFlow 2.21) with the same code.
"""
import numpy as np
import pytest

import minieager as me


class Dense(me.Module):
    def __init__(self, n_in, n_out, name=None):
        super().__init__(name=name)
        self.w = me.Variable(me.ones([n_in, n_out]), name="w")
        self.b = me.Variable(me.zeros([n_out]), name="b", trainable=False)

    def __call__(self, x):
        return me.matmul(x, self.w) + self.b


class Holder(me.Module):
    def __init__(self, name=None):
        super().__init__(name=name)
        self.z = Dense(3, 3, name="z_dense")
        self.a = Dense(3, 2, name="first")
        self.items = [Dense(2, 2, name="in_list"), {"k2": Dense(2, 2, name="dk2"), "k1": Dense(2, 2, name="dk1")}]


def test_names_default_to_the_class_in_snake_case_and_are_not_made_unique():
    # as tf.Module: M().name is "m" every time (Keras layers, unlike modules, number their names)
    class MyModule(me.Module):
        pass
    assert MyModule().name == MyModule().name == "my_module"
    assert Dense(1, 1, name="layer1").name == "layer1"


def test_a_name_that_is_not_an_identifier_is_refused():
    # tf.Module: ValueError "'bad name' is not a valid module name. Module names must be valid Python identifiers"
    with pytest.raises(ValueError, match=r"'bad name' is not a valid module name.*identifiers.*'bad_name'"):
        me.Module(name="bad name")


def test_submodules_are_found_through_attributes_lists_and_dicts_in_sorted_order():
    # tf.Module: attributes by sorted name (a, items, z), lists in order, dicts by sorted key
    m = Holder()
    assert isinstance(m.submodules, tuple)
    assert [s.name for s in m.submodules] == ["first", "in_list", "dk1", "dk2", "z_dense"]


def test_variables_are_own_first_then_each_submodules_each_once():
    m = Holder()
    m.scale = me.Variable(2.0, name="scale")
    m.shared = m.a.w                       # also held by m.a: listed once, where the walk meets it first
    first, in_list, dk1, dk2, z = m.submodules
    expected = [m.scale, m.a.w, m.a.b, in_list.b, in_list.w, dk1.b, dk1.w, dk2.b, dk2.w, z.b, z.w]
    assert isinstance(m.variables, tuple)
    assert [id(v) for v in m.variables] == [id(v) for v in expected]
    assert [v.name for v in m.trainable_variables] == ["scale:0"] + ["w:0"] * 5
    assert all(not v.trainable for v in m.non_trainable_variables) and len(m.non_trainable_variables) == 5


def test_submodules_are_found_at_any_depth_and_a_cycle_ends():
    outer, inner = me.Module(name="outer"), me.Module(name="inner")
    inner.leaf = Dense(1, 1, name="leaf")
    outer.child = inner
    inner.parent = outer                   # a cycle: each module is still visited once
    assert [s.name for s in outer.submodules] == ["inner", "leaf"]
    assert len(outer.variables) == 2


def test_name_scope_is_the_scope_the_module_was_created_in():
    # tf.Module: created inside name_scope("outer") -> name_scope.name == "outer/made_inside/"
    with me.name_scope("outer"):
        m = me.Module(name="made_inside")
    assert m.name_scope.name == "outer/made_inside/"
    with me.name_scope("elsewhere"):
        with m.name_scope as scope:
            assert scope == "outer/made_inside/"


def test_with_name_scope_runs_the_method_inside_the_modules_scope():
    class Scoped(me.Module):
        @me.Module.with_name_scope
        def scope(self):
            with me.name_scope("inner") as s:
                return s

        @me.Module.with_name_scope
        def __call__(self, x):
            return x * 2.0

    m = Scoped()
    assert m.scope() == "scoped/inner/"           # tf: "d/inner/" for a module named d
    with me.GradientTape() as tape:
        x = me.constant(3.0)
        tape.watch(x)
        y = m(x)
    assert [record[-1] for record in tape._records] == ["scoped"]    # the tape debugger groups the op under the module
    assert float(tape.gradient(y, x)) == 2.0


def test_trainable_variables_train_with_the_tape():
    m = Dense(2, 1, name="d")
    with me.GradientTape() as tape:
        loss = me.reduce_sum(m(me.constant([[1.0, 2.0]])) ** 2)
    grads = tape.gradient(loss, m.trainable_variables)
    assert isinstance(grads, tuple) and len(grads) == 1            # tf: a tuple, as the sources
    np.testing.assert_allclose(grads[0].numpy(), [[6.0], [12.0]])  # d/dw (x.w)^2 = 2 (x.w) x, x.w = 3
    me.optimizers.SGD(0.1).apply_gradients(zip(grads, m.trainable_variables))
    np.testing.assert_allclose(m.w.numpy(), [[0.4], [-0.2]], rtol=1e-6)


def test_a_me_function_method_traces_once_and_reads_the_variables():
    class Scaler(me.Module):
        def __init__(self):
            super().__init__()
            self.v = me.Variable(1.0)

        @me.function
        def __call__(self, x):
            return x * self.v

    s = Scaler()
    assert float(s(me.constant(2.0))) == 2.0
    s.v.assign(5.0)
    assert float(s(me.constant(2.0))) == 10.0
    assert type(s).__call__.experimental_get_tracing_count() == 1


def test_a_checkpoint_saves_and_restores_every_variable_of_a_module(tmp_path):
    m = Holder()
    m.scale = me.Variable(2.0)
    saved = [v.numpy().copy() for v in m.variables]
    path = me.train.Checkpoint(model=m).save(str(tmp_path / "ckpt"))
    for v in m.variables:
        v.assign(v.numpy() + 7)
    me.train.Checkpoint(model=m).restore(path)
    for v, value in zip(m.variables, saved):
        np.testing.assert_array_equal(v.numpy(), value)
    fresh = Holder()                       # another instance with the same structure reads it too
    fresh.scale = me.Variable(0.0)
    me.train.Checkpoint(model=fresh).restore(path)
    assert float(fresh.scale) == 2.0


def test_keras_layers_and_models_are_modules_with_their_keras_variable_order():
    model = me.Sequential([me.layers.Dense(3, input_shape=(2,)), me.layers.Dense(1)])
    assert isinstance(model, me.Module) and isinstance(model.layers[0], me.Module)
    assert list(model.submodules) == model.layers
    assert [v.name for v in model.variables] == [v.name for v in model.layers[0].variables + model.layers[1].variables]


def test_a_plain_module_inside_a_layer_gives_the_layer_its_variables():
    class WithModule(me.layers.Layer):
        def __init__(self):
            super().__init__()
            self.inner = Dense(2, 2, name="inner")

        def call(self, x):
            return self.inner(x)

    layer = WithModule()
    assert layer.trainable_variables == [layer.inner.w]
    assert layer.non_trainable_variables == [layer.inner.b]
    assert layer.submodules == (layer.inner,)


def test_a_frozen_keras_layer_inside_a_module_does_not_train():
    m = me.Module(name="holder")
    m.head = me.layers.Dense(2)
    m.head(me.ones([1, 3]))
    m.scale = me.Variable(1.0)
    assert len(m.trainable_variables) == 3
    m.head.trainable = False
    assert m.trainable_variables == (m.scale,)
    assert {id(v) for v in m.non_trainable_variables} == {id(m.head.kernel), id(m.head.bias)}


def test_a_checkpoint_restored_before_the_variables_exist_fills_them_when_they_are_made(tmp_path):
    # as TF's delayed restoration: a module that makes its variables on the first call gets the saved values then
    class Lazy(me.Module):
        def __call__(self, x):
            if not hasattr(self, "w"):
                self.w = me.Variable(me.random.normal([x.shape[-1], 2]))
            return me.matmul(x, self.w)

    saved = Lazy()
    saved(me.ones([1, 3]))
    path = me.train.Checkpoint(m=saved).save(str(tmp_path / "ckpt"))
    fresh = Lazy()
    status = me.train.Checkpoint(m=fresh).restore(path)
    fresh(me.ones([1, 3]))
    np.testing.assert_array_equal(fresh.w.numpy(), saved.w.numpy())
    status.assert_consumed()
