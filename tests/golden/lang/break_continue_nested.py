# break and continue affect only the innermost loop.
for i in range(3):
    for j in range(3):
        if j == i:
            continue
        if j > 1:
            break
        print(i, j)
# expect: 0 1
# expect: 1 0
# expect: 2 0
# expect: 2 1
total = 0
for n in range(10):
    if n % 2:
        continue
    total += n
print(total)  # expect: 20
found = None
for row in [[1, 2], [3, 4], [5, 6]]:
    for v in row:
        if v > 3:
            found = v
            break
    if found is not None:
        break
print(found)  # expect: 4
