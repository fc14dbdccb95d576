# Exceptions unwind through calls until some caller handles them.
def level3(x):
    if x < 0:
        raise ValueError(f"negative: {x}")
    return x


def level2(x):
    value = level3(x)
    print("level2 done")
    return value


def level1(x):
    try:
        return level2(x)
    except ValueError as e:
        print("level1 caught:", e)
        return 0


print(level1(5))
# expect: level2 done
# expect: 5
print(level1(-1))
# expect: level1 caught: negative: -1
# expect: 0
