# Closures see the variable, not its value at creation time.
funcs = [lambda: i for i in range(3)]
print([f() for f in funcs])  # expect: [2, 2, 2]
bound = [lambda i=i: i for i in range(3)]
print([f() for f in bound])  # expect: [0, 1, 2]


def make_multipliers():
    result = []
    for k in range(1, 4):
        def mul(x, k=k):
            return x * k
        result.append(mul)
    return result


print([m(10) for m in make_multipliers()])  # expect: [10, 20, 30]
x = 1
get_x = lambda: x
x = 2
print(get_x())  # expect: 2
