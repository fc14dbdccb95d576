# A folder without `__init__.py` is a namespace package: its modules import like a package's.
import _nspkg.tool
from _nspkg import tool
from _nspkg.tool import shout

print(_nspkg.tool is tool, shout("hi"))  # expect: True HI!
