"""``me.datasets.mnist``: the MNIST handwritten digits, downloaded once and then read from a cache.

    (x_train, y_train), (x_test, y_test) = me.datasets.mnist.load_data()

Images are uint8 arrays of shape (n, 28, 28) with values 0-255, labels uint8 arrays of shape (n,),
as ``tf.keras.datasets.mnist`` returns them: 60,000 training and 10,000 test examples.
"""
import os

from . import _download
from .idx import read_idx

FILES = ("train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz",
         "t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz")

# The published sha256 digests of the four files.
SHA256 = {
    "train-images-idx3-ubyte.gz": "440fcabf73cc546fa21475e81ea370265605f56be210a4024d2ca8f203523609",
    "train-labels-idx1-ubyte.gz": "3552534a0a558bbed6aed32b30c495cca23d567ec52cac8be1a0730e8010255c",
    "t10k-images-idx3-ubyte.gz": "8d422c7b0a1c1c79245a5bcf07fe86e33eeafee792b84584aec276f5a2dbc4e6",
    "t10k-labels-idx1-ubyte.gz": "f7ae60f92e00ec6debd23a6088c31dbd2371eca3ffa0defaefb259924204aec6",
}

MIRRORS = (
    "https://storage.googleapis.com/cvdf-datasets/mnist/",
    "https://ossci-datasets.s3.amazonaws.com/mnist/",
    "http://yann.lecun.com/exdb/mnist/",
)


def load_data(path=None, cache_dir=None, mirrors=None, sha256=None):
    """((x_train, y_train), (x_test, y_test)) as NumPy arrays.

    path       the folder holding the four .gz files (default: ``<cache_dir>/mnist``)
    cache_dir  default: $MINIEAGER_DATA_DIR, else ~/.cache/minieager/datasets
    mirrors    base URLs (or local folders) to download from, tried in order
    sha256     {file name: digest} to check against (default: the published digests)
    """
    folder = path or os.path.join(cache_dir or _download.cache_dir(), "mnist")
    digests, mirrors = sha256 or SHA256, MIRRORS if mirrors is None else mirrors
    hint = (f"If this machine is offline, download {', '.join(FILES)} by hand (e.g. from {MIRRORS[0]}) "
            f"and put them in {folder}.")
    x_train, y_train, x_test, y_test = (
        read_idx(_download.fetch(name, folder, mirrors, digests[name], hint)) for name in FILES)
    return (x_train, y_train), (x_test, y_test)

