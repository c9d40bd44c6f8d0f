"""Loads a script of scripts/ (whose names have dashes) as a module, for
the tests of the scripts themselves."""

import importlib.util
import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


def load_script(filename: str, name: str):
    """scripts/`filename` imported as module `name`."""
    spec = importlib.util.spec_from_file_location(
        name, os.path.join(ROOT, "scripts", filename))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
