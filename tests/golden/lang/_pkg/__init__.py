# A package for import_package.py; its `__init__` runs first and imports a submodule relatively.
from .util import clamp

VERSION = "1.0"
print("init", __name__, __package__)
