# Methods looked up on the type, e.g. str.lower, are plain functions of the instance.
letters = ["b", "C", "a"]
letters.sort(key=str.lower)
print(letters)  # expect: ['a', 'b', 'C']
print(list(map(str.upper, ["x", "y"])))  # expect: ['X', 'Y']
print(str.join("-", ["a", "b"]))  # expect: a-b
print(sorted(["bb", "A", "c"], key=str.lower))  # expect: ['A', 'bb', 'c']
words = ["  pad ", "trim  "]
print(list(map(str.strip, words)))  # expect: ['pad', 'trim']
