# Neither a builtin module nor a file beside the program.
import _helper
import _helperz  # error: ModuleNotFoundError: No module named '_helperz'
# expect: loading _helper
