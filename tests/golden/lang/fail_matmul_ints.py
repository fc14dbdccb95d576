# `@` needs arrays; on plain ints it is a TypeError.
a = 2
b = 3
print(a * b)  # expect: 6
c = a @ b  # error: TypeError: unsupported operand type(s) for @: 'int' and 'int'
