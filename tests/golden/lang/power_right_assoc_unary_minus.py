# ** binds tighter than unary minus on its left and is right-associative.
print(-2 ** 2)  # expect: -4
print((-2) ** 2)  # expect: 4
print(2 ** 3 ** 2)  # expect: 512
print((2 ** 3) ** 2)  # expect: 64
print(2 ** -2)  # expect: 0.25
print(-2 ** -1)  # expect: -0.5
print(10 ** 18)  # expect: 1000000000000000000
print(-3 ** 2 + 1)  # expect: -8
x = 3
print(-x ** 2)  # expect: -9
print(2 * 3 ** 2)  # expect: 18
print(not 2 ** 0 - 1)  # expect: True
