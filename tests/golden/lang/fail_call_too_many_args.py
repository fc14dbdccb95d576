# Calling a function with more positional arguments than it takes.
def add(a, b):
    return a + b


print(add(1, 2))  # expect: 3
print(add(1, 2, 3))  # error: TypeError: add() takes 2 positional arguments but 3 were given
