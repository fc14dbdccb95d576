# Shadowing a builtin with a number, then calling it.
sum = 0
for v in [1, 2]:
    sum += v
total = sum([3, 4])  # error: TypeError: 'int' object is not callable
