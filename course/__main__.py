"""``python -m course make``, ``python -m course grade SUBMISSIONS_DIR`` and ``python -m course retarget URL``;
see course/exercises/README.md and course/README.md."""
import argparse
import sys


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m course", description="minieager's course tools")
    sub = parser.add_subparsers(dest="command", required=True)
    make = sub.add_parser("make", help="generate the learner notebooks (course/exercises) from course/solutions")
    make.add_argument("lessons", nargs="*", help="lesson names (default: all), e.g. 03_gradients")
    make.add_argument("--no-run", action="store_true", help="write the notebooks without executing them")
    grade = sub.add_parser("grade", help="grade a folder of submitted notebooks")
    grade.add_argument("submissions", help="a folder: LEARNER.ipynb files, or one folder of notebooks per learner")
    grade.add_argument("--out", default=None, help="where grades.csv and the feedback files go "
                                                   "(default: SUBMISSIONS/../grades)")
    grade.add_argument("--cell-timeout", type=float, default=60, help="seconds one cell may run (default 60)")
    grade.add_argument("--notebook-timeout", type=float, default=300,
                       help="seconds one notebook may run in all (default 300)")
    grade.add_argument("--parallel", type=int, default=1, help="notebooks graded at once (default 1)")
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
    else:
        from .grade import grade_folder
        try:
            out = grade_folder(args.submissions, args.out, cell_timeout=args.cell_timeout,
                               notebook_timeout=args.notebook_timeout, parallel=args.parallel)
        except FileNotFoundError as err:
            print(err, file=sys.stderr)
            return 2
        print(f"grades written to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
