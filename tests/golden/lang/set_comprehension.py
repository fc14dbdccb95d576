# Set comprehensions.
print({x % 3 for x in range(10)})  # expect: {0, 1, 2}
print(sorted({w[0] for w in ["apple", "avocado", "banana"]}))  # expect: ['a', 'b']
print(len({c for c in "hello world" if c != " "}))  # expect: 7
print({n // 10 for n in [12, 15, 27, 31]})  # expect: {1, 2, 3}
