# Tuple unpacking on assignment: swaps and multiple targets.
a, b = 1, 2
a, b = b, a
print(a, b)  # expect: 2 1
x, y, z = "abc"
print(x, y, z)  # expect: a b c
[p, q] = [10, 20]
print(p + q)  # expect: 30
(m, n) = (3, 4)
print(m * n)  # expect: 12
only, = [99]
print(only)  # expect: 99
fib_a, fib_b = 0, 1
for _ in range(10):
    fib_a, fib_b = fib_b, fib_a + fib_b
print(fib_a)  # expect: 55
xs = [1, 2, 3]
xs[0], xs[2] = xs[2], xs[0]
print(xs)  # expect: [3, 2, 1]
i, j = divmod(7, 3)
print(i, j)  # expect: 2 1
