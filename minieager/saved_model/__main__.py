"""``python -m minieager.saved_model show PATH``: print a saved model's signatures, variables and graphs
(as TF's ``saved_model_cli show --all``)."""
import argparse
import sys

from minieager.graph.saved_model import SavedModelError, show


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m minieager.saved_model",
                                     description="Inspect a folder written by me.saved_model.save.")
    sub = parser.add_subparsers(dest="command", required=True)
    show_parser = sub.add_parser("show", help="print the signatures, variables and graphs")
    show_parser.add_argument("path")
    args = parser.parse_args(argv)
    try:
        show(args.path)
    except SavedModelError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
