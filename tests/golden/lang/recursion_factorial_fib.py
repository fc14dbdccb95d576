# Plain recursion: factorial and Fibonacci.
def factorial(n):
    return 1 if n <= 1 else n * factorial(n - 1)


def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)


print(factorial(0), factorial(5), factorial(20))  # expect: 1 120 2432902008176640000
print([fib(i) for i in range(10)])  # expect: [0, 1, 1, 2, 3, 5, 8, 13, 21, 34]


def depth(n):
    return 0 if n == 0 else 1 + depth(n - 1)


print(depth(200))  # expect: 200
