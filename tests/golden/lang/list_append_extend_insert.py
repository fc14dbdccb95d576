# Growing lists: append, extend, insert.
xs = [1, 2]
xs.append(3)
print(xs)  # expect: [1, 2, 3]
xs.append([4, 5])
print(xs, len(xs))  # expect: [1, 2, 3, [4, 5]] 4
ys = [1]
ys.extend([2, 3])
ys.extend((4,))
ys.extend("ab")
print(ys)  # expect: [1, 2, 3, 4, 'a', 'b']
zs = ["b", "d"]
zs.insert(0, "a")
zs.insert(2, "c")
zs.insert(100, "e")
zs.insert(-1, "d2")
print(zs)  # expect: ['a', 'b', 'c', 'd', 'd2', 'e']
print(xs.append(0))  # expect: None
squares = []
for i in range(5):
    squares.append(i * i)
print(squares)  # expect: [0, 1, 4, 9, 16]
