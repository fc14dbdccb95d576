# Unpacking sequences and dicts into calls with * and **.
def volume(x, y, z):
    return x * y * z


dims = [2, 3, 4]
print(volume(*dims))  # expect: 24
print(volume(1, *dims[1:]))  # expect: 12
kw = {"y": 5, "z": 6}
print(volume(1, **kw))  # expect: 30
print(volume(**{"z": 1, "x": 2, "y": 3}))  # expect: 6
print(volume(*(1,), *[2], **{"z": 3}))  # expect: 6


def show(*args, **kwargs):
    print(args, kwargs)


show(*"ab", 1, *range(2), k=1, **{"m": 2})  # expect: ('a', 'b', 1, 0, 1) {'k': 1, 'm': 2}
show()  # expect: () {}
print(*[], sep="x")  # expect:
print(max(*[3, 9, 4]))  # expect: 9
