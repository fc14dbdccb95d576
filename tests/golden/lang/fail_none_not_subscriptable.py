# A function that forgot to return its result.
def build(n):
    out = [i * i for i in range(n)]


squares = build(4)
print(squares[0])  # error: TypeError: 'NoneType' object is not subscriptable
