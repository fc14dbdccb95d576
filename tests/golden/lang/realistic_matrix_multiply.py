# Blocked matrix multiplication with plain lists, checked against the naive product.
def matmul(a, b):
    n, k, m = len(a), len(b), len(b[0])
    return [[sum(a[i][p] * b[p][j] for p in range(k)) for j in range(m)] for i in range(n)]


def blocked_matmul(a, b, bs):
    n, m = len(a), len(b[0])
    out = [[0] * m for _ in range(n)]
    for i0 in range(0, n, bs):
        for j0 in range(0, m, bs):
            for p0 in range(0, len(b), bs):
                for i in range(i0, min(i0 + bs, n)):
                    for j in range(j0, min(j0 + bs, m)):
                        for p in range(p0, min(p0 + bs, len(b))):
                            out[i][j] += a[i][p] * b[p][j]
    return out


a = [[i + j for j in range(5)] for i in range(4)]
b = [[(i * j) % 3 for j in range(3)] for i in range(5)]
print(matmul(a, b))  # expect: [[0, 9, 12], [0, 13, 17], [0, 17, 22], [0, 21, 27]]
print(blocked_matmul(a, b, 2) == matmul(a, b))  # expect: True
