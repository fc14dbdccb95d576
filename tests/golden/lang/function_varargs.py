# *args collects extra positional arguments into a tuple.
def total(*values):
    print(type_name(values), len(values))
    return sum(values)


def type_name(x):
    return "tuple" if isinstance(x, tuple) else "other"


print(total(1, 2, 3))
# expect: tuple 3
# expect: 6
print(total())
# expect: tuple 0
# expect: 0


def log(level, *parts, sep=" "):
    return f"[{level}] " + sep.join(str(p) for p in parts)


print(log("info", "grid", 4, "blocks"))  # expect: [info] grid 4 blocks
print(log("warn", "a", "b", sep="/"))  # expect: [warn] a/b
