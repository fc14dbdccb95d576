# Lists of lists as small matrices.
m = [[1, 2, 3], [4, 5, 6]]
print(len(m), len(m[0]))  # expect: 2 3
print(m[1][2])  # expect: 6
m[0][1] = 20
print(m)  # expect: [[1, 20, 3], [4, 5, 6]]
transposed = [[row[j] for row in m] for j in range(len(m[0]))]
print(transposed)  # expect: [[1, 4], [20, 5], [3, 6]]
flat = [x for row in m for x in row]
print(flat)  # expect: [1, 20, 3, 4, 5, 6]
identity = [[1 if i == j else 0 for j in range(3)] for i in range(3)]
for row in identity:
    print(row)
# expect: [1, 0, 0]
# expect: [0, 1, 0]
# expect: [0, 0, 1]
print(sum(sum(row) for row in m))  # expect: 39
