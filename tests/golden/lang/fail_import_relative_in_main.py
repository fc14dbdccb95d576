# A relative import in the main program has no package to be relative to.
print("start")  # expect: start
from . import _helper  # error: ImportError: attempted relative import with no known parent package
