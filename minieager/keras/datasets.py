"""``me.keras.datasets``: the datasets that load without a network, as ``tf.keras.datasets``.

    (x_train, y_train), (x_test, y_test) = me.keras.datasets.mnist.load_data()

``mnist`` reads its files from a local cache (downloaded once, or put there by hand); ``digits``
ships with scikit-learn. The other Keras datasets (cifar10, fashion_mnist, imdb, ...) would need
the network every time a course runs, so they are not here: the error says what to use instead.
"""
from ..data.datasets import digits, mnist  # noqa: F401

_NETWORK_ONLY = ("boston_housing", "california_housing", "cifar10", "cifar100", "fashion_mnist", "imdb", "reuters")


def __getattr__(name):
    if name in _NETWORK_ONLY:
        raise AttributeError(
            f"module 'me.keras.datasets' has no attribute '{name}'. minieager loads datasets offline only: "
            f"me.keras.datasets.mnist (from a local cache; downloaded once) and me.keras.datasets.digits (ships "
            f"with scikit-learn). For {name}, load the arrays yourself (e.g. with NumPy from a file) and use "
            f"me.data.Dataset.from_tensor_slices.")
    from .._hints import missing
    raise missing(__name__, name)
