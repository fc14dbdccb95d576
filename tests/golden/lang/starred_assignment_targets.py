# Starred targets collect the rest into a list.
first, *rest = [1, 2, 3, 4]
print(first, rest)  # expect: 1 [2, 3, 4]
*init, last = (1, 2, 3)
print(init, last)  # expect: [1, 2] 3
a, *mid, b = "hello"
print(a, mid, b)  # expect: h ['e', 'l', 'l'] o
x, *empty, y = [1, 2]
print(x, empty, y)  # expect: 1 [] 2
head, *tail = range(3)
print(head, tail)  # expect: 0 [1, 2]
for name, *scores in [("ada", 9, 8), ("bob", 7)]:
    print(name, sum(scores))
# expect: ada 17
# expect: bob 7
*batch_dims, h, w = (4, 2, 8, 128)
print(batch_dims, h, w)  # expect: [4, 2] 8 128
