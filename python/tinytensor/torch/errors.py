"""Errors of the PyTorch front end."""


class UnsupportedOpError(NotImplementedError):
    """A PyTorch operation TinyTensor cannot compile (yet)."""
