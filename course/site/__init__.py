"""The course site, its Binder and Colab helpers: run them as ``python -m course.site.build``,
``python -m course.site.colab`` from the repository root (see course/README.md)."""
