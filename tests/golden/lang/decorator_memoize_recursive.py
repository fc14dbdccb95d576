# A memoizing decorator: recursive calls go through the decorated name.
def memoize(fn):
    cache = {}

    def wrapper(n):
        if n not in cache:
            cache[n] = fn(n)
        return cache[n]

    return wrapper


calls = 0


@memoize
def fib(n):
    global calls
    calls += 1
    return n if n < 2 else fib(n - 1) + fib(n - 2)


print(fib(80))  # expect: 23416728348467685
print(calls)  # expect: 81
print(fib(10), calls)  # expect: 55 81
