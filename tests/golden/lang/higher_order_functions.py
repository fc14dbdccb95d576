# Functions are values: passed in, returned, stored.
def apply_twice(f, x):
    return f(f(x))


def compose(f, g):
    return lambda x: f(g(x))


def inc(x):
    return x + 1


def double(x):
    return x * 2


print(apply_twice(inc, 5))  # expect: 7
print(compose(inc, double)(5), compose(double, inc)(5))  # expect: 11 12
pipeline = [inc, double, inc]
value = 1
for step in pipeline:
    value = step(value)
print(value)  # expect: 5
table = {"inc": inc, "double": double}
print([table[name](10) for name in ("double", "inc")])  # expect: [20, 11]
print(inc is table["inc"])  # expect: True
