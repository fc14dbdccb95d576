# Searching lists: index and count.
xs = ["a", "b", "c", "b"]
print(xs.index("b"))  # expect: 1
print(xs.index("b", 2))  # expect: 3
print(xs.count("b"), xs.count("z"))  # expect: 2 0
print([1, 1.0, True].count(1))  # expect: 3
nums = [5, 3, 9, 3]
print(nums.index(min(nums)), nums.index(max(nums)))  # expect: 1 2
print([[1], [2], [1]].count([1]))  # expect: 2
