# min and max with key=, default= and several arguments.
words = ["pear", "fig", "banana", "kiwi"]
print(min(words, key=len), max(words, key=len))  # expect: fig banana
print(max([], default=0))  # expect: 0
print(min([], default=None))  # expect: None
print(max([7], default=0))  # expect: 7
print(max(3, 8, 1, key=lambda v: -v))  # expect: 1
print(max("b", "ab", "abc", key=len))  # expect: abc
print(max(["kiwi", "pear"], key=len))  # expect: kiwi
stock = {"apple": 3, "pear": 7, "fig": 7}
print(max(stock, key=stock.get))  # expect: pear
print(min(stock.items(), key=lambda kv: kv[1]))  # expect: ('apple', 3)
print(max((2, "b"), (2, "a")))  # expect: (2, 'b')
