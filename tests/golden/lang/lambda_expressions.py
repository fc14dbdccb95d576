# lambda: small anonymous functions.
square = lambda x: x * x
print(square(7))  # expect: 49
add = lambda a, b=10: a + b
print(add(1), add(1, 2))  # expect: 11 3
print((lambda: "no args")())  # expect: no args
print((lambda *xs: len(xs))(1, 2, 3))  # expect: 3
print((lambda **kw: sorted(kw))(b=1, a=2))  # expect: ['a', 'b']
adder = lambda n: lambda x: x + n
print(adder(5)(10))  # expect: 15
ops = {"+": lambda a, b: a + b, "*": lambda a, b: a * b}
print(ops["*"](6, 7), ops["+"](6, 7))  # expect: 42 13
print(sorted([(1, "b"), (0, "c")], key=lambda p: p[1]))  # expect: [(1, 'b'), (0, 'c')]
print((lambda x, *, scale: x * scale)(2, scale=4))  # expect: 8
