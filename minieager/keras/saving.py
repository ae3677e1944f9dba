"""``me.keras.saving``: whole-model files (``.keras``) and the registry of custom classes, as ``keras.saving``."""
from ..nn._config import _REGISTRY, register_serializable as register_keras_serializable  # noqa: F401
from ..nn.saving import deserialize_layer as deserialize_keras_object  # noqa: F401
from ..nn.saving import load_model, save_model, serialize_layer as serialize_keras_object  # noqa: F401


def get_custom_objects():
    """The registered classes, by their saved names ("package>Name")."""
    return _REGISTRY


def get_registered_name(cls):
    from ..nn._config import registered_name
    return registered_name(cls) or cls.__name__


def __getattr__(name):
    from .._hints import missing
    raise missing(__name__, name)   # a TF name minieager lacks: say what to use instead
