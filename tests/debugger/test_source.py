"""Code links in traces: source without comments, paths without the machine's folders."""
import io
import os
import sys
import tokenize

from hypothesis import given, strategies as st

import minieager as me
from minieager.debugger.source import _short, without_comments


def test_comments_go_and_strings_with_a_hash_stay():
    source = ('x = 1  # a note\n'
              '# a line of comment only\n'
              'y = "a # b"  # c\n'
              'z = """doc # kept\n'
              'still doc # kept"""  # gone\n'
              "q = '\\'#'  # g")
    assert without_comments(source) == ('x = 1\ny = "a # b"\nz = """doc # kept\nstill doc # kept"""\n'
                                        "q = '\\'#'")


_names = st.sampled_from(["x", "y", "total", "me.sigmoid(x)", "f(a, b)"])
_strings = st.text(alphabet="ab #'", max_size=6).map(repr)
_comments = st.text(alphabet="ab #'\"-", max_size=10).map(lambda t: "# " + t)


@given(st.lists(st.tuples(_names, st.one_of(_names, _strings), st.one_of(st.none(), _comments)),
                min_size=1, max_size=5))
def test_what_remains_is_the_same_code_without_a_comment_token(lines):
    """As Python's own tokenizer reads it: every token but the comments is kept, in order."""
    source = "\n".join(f"{a} = {b}" + (f"  {c}" if c else "") for a, b, c in lines) + "\n"

    def tokens(text):
        return [(t.type, t.string) for t in tokenize.generate_tokens(io.StringIO(text).readline)
                if t.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.ENDMARKER)]

    stripped = without_comments(source)
    assert [t for t in tokens(source) if t[0] != tokenize.COMMENT] == tokens(stripped)


def test_paths_are_never_absolute():
    here = os.path.abspath(__file__)
    assert _short(os.path.join(os.path.dirname(me.__file__), "ops", "linalg.py")) == "minieager/ops/linalg.py"
    assert _short("/tmp/ipykernel_123/456.py") == "notebook cell"
    assert not _short(here).startswith("/") and here.endswith(_short(here))
    assert _short("/nowhere/on/the/path/module.py") == "module.py"
    root = os.path.dirname(os.path.dirname(os.path.dirname(here)))
    if root in sys.path or root + os.sep in sys.path:
        assert _short(os.path.join(root, "course", "bugs.py")) == "course/bugs.py"


def test_a_trace_of_the_course_bugs_carries_no_comment_and_no_folder_of_this_machine():
    from course import bugs
    x = me.constant([0.5, -1.0], dtype=me.float64)
    with me.GradientTape() as tape:
        tape.watch(x)
        dbg = tape.debugger()
        y = me.reduce_sum(bugs.model(x))  # a comment the trace must drop
    dbg.backprop(y, [x])
    text = str(dbg.trace.to_dict())
    ops = [n for n in dbg.trace.to_dict()["nodes"] if n["kind"] == "op"]
    assert {n["code"]["text"] for n in ops} == {"y = me.reduce_sum(bugs.model(x))",
                                                "return course_halve(course_cube(course_softplus(x)))"}
    assert "#" not in "".join(n["vjp"]["text"] for n in ops)
    for folder in {os.path.dirname(os.path.abspath(__file__)), os.path.expanduser("~"), os.getcwd(), sys.prefix}:
        assert folder not in text
    assert {n["vjp"]["file"] for n in ops if n["op"].startswith("course_")} == {"course/bugs.py"}
