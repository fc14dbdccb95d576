squares = [x * x for x in range(10) if x % 3]
pairs = {(i, j) for i in range(3) for j in range(i)}
index = {k: v for k, v in zip("abc", [1, 2, 3])}
total = sum(x for x in squares)
first, *rest = squares
merged = {**index, "d": 4}
flat = [*squares, *rest]
