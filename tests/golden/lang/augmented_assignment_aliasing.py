# += on a list mutates it in place, so every alias sees the change; on tuples and strings it
# rebinds the name to a new object.
a = [1, 2]
b = a
b += [3]
print(a)  # expect: [1, 2, 3]
b = b + [4]
print(a, b)  # expect: [1, 2, 3] [1, 2, 3, 4]
print(a is b)  # expect: False

t = (1, 2)
u = t
u += (3,)
print(t, u)  # expect: (1, 2) (1, 2, 3)

s = "x"
r = s
r += "y"
print(s, r)  # expect: x xy


def append_all(target, items):
    target += items


data = [0]
append_all(data, [7, 8])
print(data)  # expect: [0, 7, 8]
