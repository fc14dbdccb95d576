# Imported by import_module_state.py: module state that functions of the module change.
print("running _counter as", __name__)
count = 0


def bump():
    global count
    count += 1
    return count
