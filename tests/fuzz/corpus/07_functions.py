def f(a, b=1, /, c=2, *args, d, e=3, **kwargs) -> int:
    global counter
    def g():
        nonlocal a
        a = a + 1
        return a
    return g() + len(args) + len(kwargs)


h = lambda x, *ys, k=0, **kw: x if k else -x
print(f(1, 2, 3, 4, d=5, **{"z": 6}), h(1, k=1), *[1, 2])
