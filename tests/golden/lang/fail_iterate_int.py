# Looping over a number instead of a range.
n = 4
total = 0
for i in range(n):
    total += i
print(total)  # expect: 6
for i in n:  # error: TypeError: 'int' object is not iterable
    print(i)
