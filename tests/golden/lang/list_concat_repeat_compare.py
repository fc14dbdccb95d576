# +, * and comparisons on lists and tuples.
print([1, 2] + [3])  # expect: [1, 2, 3]
print([0] * 4)  # expect: [0, 0, 0, 0]
print(2 * [1, "a"])  # expect: [1, 'a', 1, 'a']
print((1,) + (2, 3))  # expect: (1, 2, 3)
print([] * 5, () * 2)  # expect: [] ()
print([1, 2] < [1, 3], [1, 2] < [1, 2, 0])  # expect: True True
print([2] > [1, 9])  # expect: True
print((1, "b") < (1, "c"))  # expect: True
print([1, [2, 3]] == [1, [2, 3]])  # expect: True
print([] == [], [] != [0])  # expect: True True
print([3] * -1)  # expect: []
