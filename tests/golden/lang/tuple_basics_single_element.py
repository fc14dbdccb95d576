# Tuples: the comma makes the tuple, parentheses only group.
t = 1, 2, 3
print(t)  # expect: (1, 2, 3)
single = (5,)
not_a_tuple = (5)
print(single, not_a_tuple)  # expect: (5,) 5
print(len(single), len(()))  # expect: 1 0
print(tuple(), ("a",) * 3)  # expect: () ('a', 'a', 'a')
shape = (8, 128)
rows, cols = shape
print(rows * cols, shape[-1])  # expect: 1024 128
print(shape.index(128), shape.count(8))  # expect: 1 1
nested = ((1, 2), (3,))
print(nested, nested[1][0])  # expect: ((1, 2), (3,)) 3
print((1, 2) == (1, 2), (1, 2) == [1, 2])  # expect: True False
print(3 in shape, tuple([1]) + shape)  # expect: False (1, 8, 128)
