# `@=` on lists: matrix multiplication needs arrays.
m = [[1, 0], [0, 1]]
v = [[2], [3]]
print(len(m), len(v))  # expect: 2 2
m @= v  # error: TypeError: unsupported operand type(s) for @=: 'list' and 'list'
