# Parentheses where square brackets were meant.
xs = [10, 20, 30]
first = xs[0]
print(first)  # expect: 10
second = xs(1)  # error: TypeError: 'list' object is not callable
print(second)
