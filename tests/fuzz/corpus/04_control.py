total = 0
for i in range(10):
    if i % 2 == 0 and not i > 6:
        continue
    elif i is None or i in (3, 5):
        break
    else:
        total += i ** 2
else:
    pass
while total > 0:
    total -= 1
assert total == 0, f"total={total!r:>{width}}"
