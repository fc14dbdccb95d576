# The middle operand of a chain is evaluated once, and a false link stops evaluation.
calls = []


def value(name, v):
    calls.append(name)
    return v


print(value("a", 1) < value("b", 2) < value("c", 3))  # expect: True
print(calls)  # expect: ['a', 'b', 'c']
calls.clear()
print(value("a", 5) < value("b", 2) < value("c", 3))  # expect: False
print(calls)  # expect: ['a', 'b']
