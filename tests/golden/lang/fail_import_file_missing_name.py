# Importing a name that a module beside the program does not define.
from _helper import double, quadruple  # error: ImportError: cannot import name 'quadruple' from '_helper'
# expect: loading _helper
