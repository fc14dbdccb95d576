# Set literals and operators; small non-negative ints print in sorted order.
a = {1, 2, 3, 4}
b = {3, 4, 5}
print(a | b)  # expect: {1, 2, 3, 4, 5}
print(a & b)  # expect: {3, 4}
print(a - b)  # expect: {1, 2}
print(a ^ b)  # expect: {1, 2, 5}
print(set(), len(set()))  # expect: set() 0
print({3, 1, 3, 2})  # expect: {1, 2, 3}
words = {"pear", "apple", "fig"}
print(sorted(words))  # expect: ['apple', 'fig', 'pear']
print("fig" in words, "kiwi" not in words)  # expect: True True
print({1, 2} == {2, 1}, {1, 2} <= {1, 2, 3})  # expect: True True
print(sorted(set("mississippi")))  # expect: ['i', 'm', 'p', 's']
