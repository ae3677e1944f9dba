"""``python -m course make``, ``grade SUBMISSIONS_DIR``, ``merge OUT SHARD_OUT...`` and ``retarget URL``;
see course/README.md and course/exercises/README.md."""
import argparse
import sys


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m course", description="minieager's course tools")
    sub = parser.add_subparsers(dest="command", required=True)
    make = sub.add_parser("make", help="generate the learner notebooks (course/exercises) from course/solutions")
    make.add_argument("lessons", nargs="*", help="lesson names (default: all), e.g. 03_gradients")
    make.add_argument("--no-run", action="store_true", help="write the notebooks without executing them")
    grade = sub.add_parser("grade", help="grade a folder of submitted notebooks, each in its own sandbox")
    grade.add_argument("submissions", help="a folder: LEARNER.ipynb files, or one folder of notebooks per learner")
    grade.add_argument("--out", default=None, help="where results/, the CSV files and feedback/ go "
                                                   "(default: SUBMISSIONS/../grades)")
    grade.add_argument("--cell-timeout", type=float, default=60, help="seconds one cell may run (default 60)")
    grade.add_argument("--exercise-timeout", type=float, default=None,
                       help="seconds the checks of one exercise may run (default: the cell timeout)")
    grade.add_argument("--notebook-timeout", type=float, default=600,
                       help="seconds one notebook may run in all, checks included (default 600)")
    grade.add_argument("--parallel", type=int, default=1, help="notebooks graded at once (default 1)")
    grade.add_argument("--shard", default=None, help="I/N: grade only the I-th of N slices of the class "
                                                     "(merge the slices with `python -m course merge`)")
    grade.add_argument("--id-pattern", default=r"(?P<id>.+)",
                       help="a regular expression whose group 'id' finds the student id in a submission's "
                            "name (default: the whole name), e.g. '^[^_]+_(?:LATE_)?(?P<id>\\d+)_' for Canvas")
    grade.add_argument("--assignment", default="minieager course", help="the grade column's name in canvas.csv "
                                                                        "and moodle.csv")
    grade.add_argument("--seed", type=int, default=None, help="draw the checks' cases from this seed (default: "
                                                              "fresh for every run)")
    grade.add_argument("--memory-mb", type=int, default=None, help="address space per sandboxed process")
    grade.add_argument("--unsafe-local", action="store_true",
                       help="grade without the bubblewrap sandbox (where bwrap cannot run): the notebooks "
                            "run with your permissions and scores are not safe to record")
    merge = sub.add_parser("merge", help="merge the results of shards into one set of tables")
    merge.add_argument("out", help="the folder to write (it may be one of the shards' folders)")
    merge.add_argument("shards", nargs="*", help="the shards' --out folders")
    merge.add_argument("--assignment", default="minieager course")
    retarget = sub.add_parser("retarget", help="point every launch link (site buttons, Colab install cells) "
                                               "at another GitHub repository")
    retarget.add_argument("url", help="https://github.com/OWNER/NAME")
    args = parser.parse_args(argv)
    if args.command == "retarget":
        from .retarget import main as run_retarget
        return run_retarget(args.url)
    if args.command == "make":
        from .generate import make as run_make
        run_make(args.lessons, run=not args.no_run)
        return 0
    if args.command == "merge":
        from .exports import merge as run_merge
        try:
            out = run_merge(args.out, args.shards, assignment=args.assignment)
        except FileNotFoundError as err:
            print(err, file=sys.stderr)
            return 2
        print(f"tables written to {out}")
        return 0
    from . import sandbox
    from .grade import SandboxUnavailable, grade_folder, parse_shard
    limits = sandbox.Limits(**({"memory_mb": args.memory_mb} if args.memory_mb else {}))
    try:
        shard = parse_shard(args.shard) if args.shard else None
        if args.unsafe_local:
            print("grade: --unsafe-local: the notebooks run WITHOUT a sandbox, with your permissions; a notebook "
                  "can change files, read other submissions and fake its score. Do not record these scores.",
                  file=sys.stderr)
        out = grade_folder(args.submissions, args.out, cell_timeout=args.cell_timeout,
                           exercise_timeout=args.exercise_timeout, notebook_timeout=args.notebook_timeout,
                           parallel=args.parallel, shard=shard, unsafe_local=args.unsafe_local,
                           id_pattern=args.id_pattern, assignment=args.assignment, seed=args.seed, limits=limits)
    except (FileNotFoundError, ValueError) as err:
        print(err, file=sys.stderr)
        return 2
    except SandboxUnavailable as err:
        print(err, file=sys.stderr)
        return 3
    print(f"grades written to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
