# String comparison is lexicographic by code point; * and + build new strings.
print("apple" < "banana")  # expect: True
print("Zebra" < "apple")  # expect: True
print("abc" < "abd", "ab" < "abc")  # expect: True True
print("a" * 3, 3 * "ab")  # expect: aaa ababab
print("-" * 0 == "")  # expect: True
print("py" + "thon")  # expect: python
print(sorted(["b", "A", "a", "B"]))  # expect: ['A', 'B', 'a', 'b']
print("=" * 10)  # expect: ==========
print(max(["x", "xyz", "xy"]))  # expect: xyz
