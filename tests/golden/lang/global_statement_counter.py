# `global` lets a function rebind a module-level name.
calls = 0
registry = []


def tracked(name):
    global calls
    calls += 1
    registry.append(name)
    return calls


tracked("a")
tracked("b")
print(calls, registry)  # expect: 2 ['a', 'b']


def set_mode(value):
    global MODE
    MODE = value


set_mode("tpu")
print(MODE)  # expect: tpu


def read_only():
    return calls * 10


print(read_only())  # expect: 20
