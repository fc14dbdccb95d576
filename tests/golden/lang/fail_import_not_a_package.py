# A plain module has no submodules.
import _helper.sub  # error: ModuleNotFoundError: No module named '_helper.sub'; '_helper' is not a package
# expect: loading _helper
