"""A throwaway bubblewrap sandbox for one submission: its command line, its limits, and whether it can run.

Inside, the learner's notebook runs as an unprivileged user with:

- no network and its own process tree (``/proc`` shows only the sandbox: no grader command line, no
  other submission);
- a read-only view of the system (``/usr``, ``/etc``), of Python and its packages, and of minieager and
  the ``course`` package mounted at ``/grader/pkg``, where ``course/solutions``, ``course/hidden`` and
  ``course/tests`` are empty folders. Nothing else of the grader's machine is there: not the
  submissions folder, not the repository, not the home folder;
- its own empty ``/tmp`` (a size-limited tmpfs, thrown away with the sandbox): the notebook runs there;
- ``/grading/in`` (read-only: the notebook and the grader's request) and ``/grading/out`` (the one
  folder it may write to on the host, for its result, capped by the file-size limit);
- limits on CPU time, address space, file size and the number of processes (a fork bomb stops at it).

Two ways to start it (``usable()`` picks the first that works here):

- ``"root"``: run as root (CI, a grading server), bwrap mounts without a user namespace and ``setpriv``
  drops to the unprivileged uid, so the process limit counts that uid's processes only (each parallel
  slot gets its own uid);
- ``"userns"``: bwrap maps the calling user into a user namespace (any user, where user namespaces are
  enabled). The process limit then counts the caller's own processes, so it is set above their
  number; when the caller is root the kernel does not apply it at all, and a fork bomb is only
  stopped by the notebook's time limit (``PROCESS_LIMITED`` says which).
"""
import functools
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

PACKAGE_MOUNT = "/grader/pkg"
IN, OUT = "/grading/in", "/grading/out"
NOBODY = 65534
SLOT_UIDS = 65520        # parallel slot k runs as uid 65520 + k (k < 14), each with its own process limit
MASKED = ("solutions", "hidden", "tests")   # course/ folders the sandbox sees empty


@dataclass(frozen=True)
class Limits:
    cpu_seconds: int = 900          # CPU time of each process in the sandbox
    memory_mb: int = 6144           # address space of each process (numba and LLVM reserve a lot)
    file_mb: int = 64               # the largest file a process may write (the result, a huge print)
    tmp_mb: int = 512               # the sandbox's /tmp in all
    processes: int = 256            # processes and threads of the sandbox's uid


def bwrap():
    return shutil.which("bwrap")


def uid_for(slot):
    return SLOT_UIDS + slot % 14 if slot is not None else NOBODY


def _is_root():
    return os.geteuid() == 0


def _bind_links(args, made):
    """In a checkout, the widget's static files are links to the repository's widgets/ folder (one copy
    of the front-end): bind each link's target where the link points inside the sandbox, so the tape
    debugger's cells find their JavaScript there too."""
    static = package_dirs()["minieager"] / "widgets" / "static"
    for link in sorted(static.glob("*")) if static.is_dir() else ():
        if link.is_symlink() and link.resolve().is_file():
            inside = os.path.normpath(f"{PACKAGE_MOUNT}/minieager/widgets/static/{os.readlink(link)}")
            _bind_parents(args, inside, made)
            args += ["--ro-bind", str(link.resolve()), inside]


def _bind_parents(args, path, made):
    """--dir for each parent of ``path`` (0755, so the unprivileged user can walk through it)."""
    parents = []
    for parent in Path(path).parents:
        if str(parent) in ("/", ""):
            break
        parents.append(str(parent))
    for parent in reversed(parents):
        if parent not in made:
            made.add(parent)
            args += ["--perms", "0755", "--dir", parent]


def python_paths():
    """The folders Python and its installed packages live in (read-only in the sandbox)."""
    paths = {sys.base_prefix, sys.prefix, str(Path(os.path.realpath(sys.executable)).parent.parent)}
    return sorted(p for p in paths if p and os.path.isdir(p))


def package_dirs():
    """minieager's and course's source folders (the ones this process imports)."""
    import minieager
    return {"minieager": Path(minieager.__file__).resolve().parent, "course": Path(__file__).resolve().parent}


_mode = []     # the way usable() found to work: ["root"] or ["userns"]


def mode():
    return _mode[0] if _mode else ("root" if _is_root() else "userns")


def process_limited():
    """True when the sandbox's process limit is enforced by the kernel (not for root in a user namespace)."""
    return mode() == "root" or not _is_root()


def _own_tasks():
    """Processes and threads of this user now (the process limit counts them in a user namespace)."""
    uid, count = os.getuid(), 0
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            lines = dict(line.split(":", 1) for line in status.read_text().splitlines() if ":" in line)
            if int(lines["Uid"].split()[0]) == uid:
                count += int(lines["Threads"])
        except (OSError, KeyError, ValueError):
            continue
    return count


def command(inner, in_dir, out_dir, slot=None, limits=Limits(), mask_tests=True, how=None):
    """The argv that runs ``inner`` (a list) in a fresh sandbox."""
    root = (how or mode()) == "root"
    uid = uid_for(slot)
    args = [bwrap(), "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
            "--die-with-parent", "--new-session", "--clearenv"]
    if not root:
        args += ["--unshare-user", "--uid", str(uid), "--gid", str(uid)]
    args += ["--ro-bind", "/usr", "/usr"]
    for name in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
        path = Path("/") / name
        if path.is_symlink():
            args += ["--symlink", os.readlink(path), str(path)]
        elif path.is_dir():
            args += ["--ro-bind", str(path), str(path)]
    args += ["--ro-bind", "/etc", "/etc", "--dev", "/dev", "--proc", "/proc",
             "--perms", "1777", "--size", str(limits.tmp_mb << 20), "--tmpfs", "/tmp"]
    made = {"/tmp"}
    for path in python_paths():
        _bind_parents(args, path, made)
        args += ["--ro-bind", path, path]
    for name, source in package_dirs().items():
        target = f"{PACKAGE_MOUNT}/{name}"
        _bind_parents(args, target + "/x", made)
        args += ["--ro-bind", str(source), target]
        if name == "course":
            for masked in MASKED:
                if (source / masked).is_dir() and (masked != "tests" or mask_tests):
                    args += ["--tmpfs", f"{target}/{masked}", "--remount-ro", f"{target}/{masked}"]
    _bind_links(args, made)
    _bind_parents(args, IN + "/x", made)
    args += ["--ro-bind", str(in_dir), IN, "--bind", str(out_dir), OUT]
    env = {"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin", "HOME": "/tmp/home", "LANG": "C.UTF-8",
           "PYTHONPATH": PACKAGE_MOUNT, "PYTHONDONTWRITEBYTECODE": "1", "MPLCONFIGDIR": "/tmp/home/.matplotlib",
           "NUMBA_CACHE_DIR": "/tmp/home/.cache/numba", "MINIEAGER_NUM_THREADS": "1", "NUMBA_NUM_THREADS": "1",
           "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
           "JUPYTER_PLATFORM_DIRS": "1", "COURSE_GRADING": "1"}
    for key, value in env.items():
        args += ["--setenv", key, value]
    args += ["--chdir", "/tmp"]
    if root:
        args += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID", "setpriv", f"--reuid={uid}",
                 f"--regid={uid}", "--clear-groups", "--no-new-privs", "--inh-caps=-all"]
    args += ["prlimit", f"--cpu={limits.cpu_seconds}", f"--as={limits.memory_mb << 20}",
             f"--fsize={limits.file_mb << 20}", "--core=0", "--nofile=1024"]
    if root:
        args += [f"--nproc={limits.processes}"]
    elif not _is_root():   # the limit counts this user's own processes outside the sandbox too
        args += [f"--nproc={_own_tasks() + limits.processes}"]
    return args + ["--", *inner]


def prepare_out(out_dir, slot=None, how=None):
    """The one host folder the sandbox writes: owned by its uid when it drops to one."""
    Path(out_dir).mkdir(parents=True, exist_ok=True)
    if (how or mode()) == "root":
        os.chown(out_dir, uid_for(slot), uid_for(slot))


@functools.lru_cache(maxsize=1)
def usable():
    """(True, "") when a sandbox starts and runs Python here, else (False, why not)."""
    if bwrap() is None:
        return False, "bubblewrap (bwrap) is not installed: `apt-get install bubblewrap` (Debian, Ubuntu)"
    why = "no way worked"
    for how in (["root"] if _is_root() else []) + ["userns"]:
        ok, why = _try(how)
        if ok:
            _mode[:] = [how]
            return True, ""
    return False, why


def _try(how):
    import tempfile
    with tempfile.TemporaryDirectory(prefix="course-sandbox-check-") as tmp:
        in_dir, out_dir = Path(tmp) / "in", Path(tmp) / "out"
        in_dir.mkdir()
        prepare_out(out_dir, how=how)
        inner = [sys.executable, "-c", "import course, minieager; open('/grading/out/ok', 'w').write('ok')"]
        try:
            done = subprocess.run(command(inner, in_dir, out_dir, how=how), capture_output=True, text=True,
                                  timeout=120)
        except (OSError, subprocess.TimeoutExpired) as err:
            return False, f"bwrap could not start: {err}"
        if done.returncode != 0 or not (out_dir / "ok").exists():
            why = (done.stderr.strip().splitlines() or ["no message"])[-1]
            return False, f"bwrap could not run a sandbox here ({why}); user namespaces may be disabled"
    return True, ""
