# An attribute that ints do not have.
n = 3
print(n + 1)  # expect: 4
print(abs(-n))  # expect: 3
x = (1).foo  # error: AttributeError: 'int' object has no attribute 'foo'
print(x)
