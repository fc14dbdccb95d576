# get with defaults and setdefault for grouping.
prices = {"apple": 3, "pear": 5}
print(prices.get("apple"))  # expect: 3
print(prices.get("kiwi"))  # expect: None
print(prices.get("kiwi", 0))  # expect: 0
groups = {}
for word in ["apple", "avocado", "banana", "blueberry", "cherry"]:
    groups.setdefault(word[0], []).append(word)
print(groups)  # expect: {'a': ['apple', 'avocado'], 'b': ['banana', 'blueberry'], 'c': ['cherry']}
print(groups.setdefault("a", "ignored"))  # expect: ['apple', 'avocado']
counts = {}
for ch in "mississippi":
    counts[ch] = counts.get(ch, 0) + 1
print(counts)  # expect: {'m': 1, 'i': 4, 's': 4, 'p': 2}
