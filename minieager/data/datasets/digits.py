"""``me.datasets.digits``: 1,797 8x8 images of handwritten digits, shipped with scikit-learn (no download).

    (x_train, y_train), (x_test, y_test) = me.datasets.digits.load_data()

Images are uint8 arrays of shape (n, 8, 8) with values 0-16, labels uint8 arrays of shape (n,):
the same form as ``me.datasets.mnist``, so a notebook can switch between the two.
"""
import numpy as np

_SEED = 0           # the split is fixed: everyone gets the same 80/20 train/test examples
_TEST_FRACTION = 0.2


def load_data():
    """((x_train, y_train), (x_test, y_test)): 1,438 training and 359 test examples."""
    try:
        from sklearn.datasets import load_digits     # imported here: only this dataset needs scikit-learn
    except ImportError:
        raise ImportError("me.datasets.digits needs scikit-learn: pip install scikit-learn") from None
    bunch = load_digits()
    images, labels = bunch.images.astype(np.uint8), bunch.target.astype(np.uint8)
    order = np.random.default_rng(_SEED).permutation(len(labels))
    n_test = round(len(labels) * _TEST_FRACTION)
    test, train = order[:n_test], order[n_test:]
    return (images[train], labels[train]), (images[test], labels[test])
