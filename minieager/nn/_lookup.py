"""Turning a Keras-style identifier ("relu", "mse", "glorot_uniform") into the object it names."""
from ..errors import InvalidArgumentError


def by_name(kind, table, identifier, create=False, also=""):
    """``table[identifier]`` for a name (called if ``create``), ``identifier`` itself if callable.

    ``kind`` names the thing in error messages ("an activation"); ``also`` ends the list of names.
    """
    if isinstance(identifier, str):
        try:
            found = table[identifier.lower()]
        except KeyError:
            raise InvalidArgumentError(
                f"Unknown {kind.split(' ', 1)[1]} {identifier!r}. Known names: {', '.join(sorted(table))}{also}.") from None
        return found() if create else found
    if callable(identifier):
        return identifier
    raise InvalidArgumentError(f"{kind.capitalize()} must be a name or a callable, got {identifier!r}.")
