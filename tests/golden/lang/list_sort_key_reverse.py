# In-place sort with key and reverse; the sort is stable.
nums = [3, 1, 4, 1, 5, 9, 2, 6]
nums.sort()
print(nums)  # expect: [1, 1, 2, 3, 4, 5, 6, 9]
nums.sort(reverse=True)
print(nums)  # expect: [9, 6, 5, 4, 3, 2, 1, 1]
words = ["kiwi", "fig", "banana", "apple", "date"]
words.sort(key=len)
print(words)  # expect: ['fig', 'kiwi', 'date', 'apple', 'banana']
words.sort(key=len, reverse=True)
print(words)  # expect: ['banana', 'apple', 'kiwi', 'date', 'fig']
pairs = [("b", 2), ("a", 2), ("c", 1)]
pairs.sort(key=lambda p: (-p[1], p[0]))
print(pairs)  # expect: [('a', 2), ('b', 2), ('c', 1)]
mixed = [2.5, 1, -3, 0.0]
mixed.sort(key=abs)
print(mixed)  # expect: [0.0, 1, 2.5, -3]
