# reversed() on lists, tuples, strings and ranges.
for i in reversed(range(3)):
    print(i, end=",")
print()  # expect: 2,1,0,
print(list(reversed([1, 2, 3])))  # expect: [3, 2, 1]
print("".join(reversed("abc")))  # expect: cba
print(tuple(reversed((1, 2))))  # expect: (2, 1)
xs = [1, 2, 3]
print([x * 10 for x in reversed(xs)], xs)  # expect: [30, 20, 10] [1, 2, 3]
print(list(reversed(range(0, 10, 4))))  # expect: [8, 4, 0]
