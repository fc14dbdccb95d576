# A comprehension's loop variable is not visible after it.
squares = [k * k for k in range(4)]
print(squares)  # expect: [0, 1, 4, 9]
total = sum(squares)
print(k, total)  # error: NameError: name 'k' is not defined
