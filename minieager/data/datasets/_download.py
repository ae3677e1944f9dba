"""Fetch a file from the first mirror that has it, check its sha256 and keep it in a cache folder."""
import hashlib
import os
import pathlib
import tempfile

from ...errors import MinieagerError

_TIMEOUT_S = 30


class DownloadError(MinieagerError, OSError):
    """No mirror could provide a file with the expected contents."""


def cache_dir():
    """Where datasets are kept: $MINIEAGER_DATA_DIR, else ~/.cache/minieager/datasets."""
    return os.environ.get("MINIEAGER_DATA_DIR") or os.path.join(
        os.path.expanduser("~"), ".cache", "minieager", "datasets")


def sha256_of(path):
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _url(mirror, filename):
    """Mirrors are URLs (https://, file://) or plain local folders."""
    if "://" not in mirror:
        mirror = pathlib.Path(mirror).resolve().as_uri()
    return mirror.rstrip("/") + "/" + filename


def _download(url, target, sha256):
    """Download into a temporary file beside ``target`` and move it into place only if the hash matches."""
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(target), prefix=".download-")
    try:
        digest = hashlib.sha256()
        import urllib.request   # here, not at the top: it costs ~10 ms of `import minieager`
        with os.fdopen(fd, "wb") as out, urllib.request.urlopen(url, timeout=_TIMEOUT_S) as response:
            for block in iter(lambda: response.read(1 << 20), b""):
                digest.update(block)
                out.write(block)
        if digest.hexdigest() != sha256:
            raise DownloadError(f"sha256 is {digest.hexdigest()}, expected {sha256}")
        os.replace(tmp, target)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def fetch(filename, folder, mirrors, sha256, hint=""):
    """The path of ``folder/filename`` with the right sha256, downloading it if needed.

    ``hint`` ends the error raised when no mirror works (e.g. how to get the files by hand).
    """
    target = os.path.join(folder, filename)
    problems = []
    if os.path.exists(target):
        found = sha256_of(target)
        if found == sha256:
            return target
        problems.append(f"{target}: sha256 is {found}, expected {sha256} (a damaged or partial file)")
    os.makedirs(folder, exist_ok=True)
    for mirror in mirrors:
        url = _url(mirror, filename)
        try:
            _download(url, target, sha256)
            return target
        except (OSError, ValueError) as err:     # URLError and HTTPError are OSErrors
            problems.append(f"{url}: {err}")
    raise DownloadError(f"Could not get {filename}:\n  " + "\n  ".join(problems) + f"\n{hint}")
