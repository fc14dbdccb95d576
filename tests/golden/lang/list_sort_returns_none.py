# list.sort() sorts in place and returns None; sorted() returns a new list.
xs = [3, 1, 2]
result = xs.sort()
print(result)  # expect: None
print(xs)  # expect: [1, 2, 3]
ys = [3, 1, 2]
zs = sorted(ys)
print(ys, zs)  # expect: [3, 1, 2] [1, 2, 3]
print(xs.reverse(), xs)  # expect: None [3, 2, 1]
