# `is` compares identity: use it for None and to detect aliasing.
result = None
print(result is None)  # expect: True
print(result is not None)  # expect: False
a = [1, 2]
b = a
c = [1, 2]
print(a is b, a is c, a == c)  # expect: True False True
print(a is not c)  # expect: True
print([] is [])  # expect: False
print(True is True, None is None)  # expect: True True
b.append(3)
print(a)  # expect: [1, 2, 3]


def find(xs, target):
    for i, x in enumerate(xs):
        if x == target:
            return i


print(find([4, 5], 5), find([4, 5], 9) is None)  # expect: 1 True
