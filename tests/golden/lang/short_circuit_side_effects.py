# The right operand of and/or runs only when needed.
log = []


def check(name, result):
    log.append(name)
    return result


if check("a", False) and check("b", True):
    print("both")
print(log)  # expect: ['a']
log.clear()
if check("a", True) or check("b", True):
    print("either")  # expect: either
print(log)  # expect: ['a']
log.clear()
result = check("a", 0) or check("b", "") or check("c", "last")
print(result, log)  # expect: last ['a', 'b', 'c']
xs = []
print(len(xs) > 0 and xs[0] > 1)  # expect: False
