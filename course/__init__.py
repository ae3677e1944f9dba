"""minieager's course: lesson notebooks with exercises, their checks, and an autograder.

In a notebook::

    from course import check
    ...                          # your code
    check("sigmoid_vjp")         # runs that exercise's tests against your definitions

From a shell: ``python -m course make`` (learner notebooks from the solutions),
``python -m course grade SUBMISSIONS_DIR`` (the autograder). See course/exercises/README.md.
"""
from .checker import check  # noqa: F401
