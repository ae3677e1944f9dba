"""me.datasets: MNIST from a local folder mirror of tiny IDX files (never the network), and digits."""
import gzip
import hashlib
import os
import struct

import numpy as np
import pytest

import minieager as me
from minieager.data.datasets import mnist
from minieager.data.datasets.idx import read_idx


def idx_bytes(array):
    header = bytes([0, 0, 0x08, array.ndim]) + struct.pack(f">{array.ndim}I", *array.shape)
    return header + array.astype(">u1").tobytes()


@pytest.fixture
def mirror(tmp_path):
    """A folder with four tiny MNIST-like files; returns (its file:// URL, their sha256s, the arrays)."""
    rng = np.random.default_rng(0)
    arrays = {
        "train-images-idx3-ubyte.gz": rng.integers(0, 256, (5, 28, 28), dtype=np.uint8),
        "train-labels-idx1-ubyte.gz": rng.integers(0, 10, 5, dtype=np.uint8),
        "t10k-images-idx3-ubyte.gz": rng.integers(0, 256, (2, 28, 28), dtype=np.uint8),
        "t10k-labels-idx1-ubyte.gz": rng.integers(0, 10, 2, dtype=np.uint8),
    }
    folder = tmp_path / "mirror"
    folder.mkdir()
    hashes = {}
    for name, array in arrays.items():
        data = gzip.compress(idx_bytes(array), mtime=0)
        (folder / name).write_bytes(data)
        hashes[name] = hashlib.sha256(data).hexdigest()
    return folder.as_uri() + "/", hashes, arrays


def test_mnist_downloads_checks_parses_and_caches(mirror, tmp_path):
    url, hashes, arrays = mirror
    (x_train, y_train), (x_test, y_test) = mnist.load_data(cache_dir=tmp_path / "cache", mirrors=[url], sha256=hashes)
    np.testing.assert_array_equal(x_train, arrays["train-images-idx3-ubyte.gz"])
    np.testing.assert_array_equal(y_test, arrays["t10k-labels-idx1-ubyte.gz"])
    assert x_train.dtype == np.uint8 and x_train.shape == (5, 28, 28) and y_train.shape == (5,)
    assert x_test.shape == (2, 28, 28)
    assert sorted(os.listdir(tmp_path / "cache" / "mnist")) == sorted(arrays)
    # The second time the cache is enough: no mirror is needed.
    (again, _), _ = mnist.load_data(cache_dir=tmp_path / "cache", mirrors=[], sha256=hashes)
    np.testing.assert_array_equal(again, x_train)


def test_mnist_tries_mirrors_in_order_and_accepts_plain_folders(mirror, tmp_path):
    url, hashes, _ = mirror
    folder = url[len("file://"):]
    (x_train, _), _ = mnist.load_data(path=tmp_path / "here", sha256=hashes,
                                      mirrors=[(tmp_path / "nowhere").as_uri(), folder])
    assert x_train.shape == (5, 28, 28) and (tmp_path / "here" / "t10k-images-idx3-ubyte.gz").exists()


def test_mnist_cache_dir_from_the_environment(mirror, tmp_path, monkeypatch):
    url, hashes, _ = mirror
    monkeypatch.setenv("MINIEAGER_DATA_DIR", str(tmp_path / "env"))
    mnist.load_data(mirrors=[url], sha256=hashes)
    assert (tmp_path / "env" / "mnist" / "train-labels-idx1-ubyte.gz").exists()


def test_no_reachable_mirror_says_where_to_put_the_files(tmp_path):
    with pytest.raises(me.datasets.DownloadError) as info:
        mnist.load_data(cache_dir=tmp_path, mirrors=[(tmp_path / "missing").as_uri()])
    message = str(info.value)
    assert "train-images-idx3-ubyte.gz" in message and str(tmp_path / "mnist") in message and "by hand" in message


def test_a_file_with_the_wrong_hash_is_rejected_and_not_kept(mirror, tmp_path):
    url, hashes, _ = mirror
    wrong = dict(hashes, **{"train-labels-idx1-ubyte.gz": "0" * 64})
    with pytest.raises(me.datasets.DownloadError, match="sha256"):
        mnist.load_data(cache_dir=tmp_path, mirrors=[url], sha256=wrong)
    assert not (tmp_path / "mnist" / "train-labels-idx1-ubyte.gz").exists()
    assert not [f for f in os.listdir(tmp_path / "mnist") if f.startswith(".download")]


def test_a_damaged_cached_file_is_downloaded_again(mirror, tmp_path):
    url, hashes, arrays = mirror
    mnist.load_data(cache_dir=tmp_path, mirrors=[url], sha256=hashes)
    (tmp_path / "mnist" / "train-images-idx3-ubyte.gz").write_bytes(b"partial")
    (x_train, _), _ = mnist.load_data(cache_dir=tmp_path, mirrors=[url], sha256=hashes)
    np.testing.assert_array_equal(x_train, arrays["train-images-idx3-ubyte.gz"])


def test_the_published_digests_are_the_real_ones():
    assert mnist.SHA256["train-images-idx3-ubyte.gz"] == \
        "440fcabf73cc546fa21475e81ea370265605f56be210a4024d2ca8f203523609"
    assert set(mnist.SHA256) == set(mnist.FILES) and all(len(h) == 64 for h in mnist.SHA256.values())


def test_read_idx_checks_the_header(tmp_path):
    good = tmp_path / "ok.idx"
    good.write_bytes(struct.pack(">4B2I", 0, 0, 0x0C, 2, 2, 3) + np.arange(6, dtype=">i4").tobytes())
    np.testing.assert_array_equal(read_idx(good), np.arange(6).reshape(2, 3))
    bad = tmp_path / "bad.idx"
    bad.write_bytes(b"PK\x03\x04rest")
    with pytest.raises(me.errors.InvalidArgumentError, match="not an IDX file"):
        read_idx(bad)
    short = tmp_path / "short.idx"
    short.write_bytes(good.read_bytes()[:-4])
    with pytest.raises(me.errors.InvalidArgumentError, match="truncated"):
        read_idx(short)


def test_digits_is_offline_fixed_and_shaped_like_mnist():
    (x_train, y_train), (x_test, y_test) = me.datasets.digits.load_data()
    assert x_train.shape == (1438, 8, 8) and x_test.shape == (359, 8, 8)
    assert x_train.dtype == np.uint8 and 0 <= x_train.min() and x_train.max() == 16
    assert y_train.shape == (1438,) and y_train.dtype == np.uint8 and set(np.unique(y_test)) == set(range(10))
    (x_again, _), (_, y_again) = me.datasets.digits.load_data()
    np.testing.assert_array_equal(x_again, x_train)
    np.testing.assert_array_equal(y_again, y_test)
