# Mutual recursion between module functions, and a recursive inner function.
def is_even(n):
    return True if n == 0 else is_odd(n - 1)


def is_odd(n):
    return False if n == 0 else is_even(n - 1)


print(is_even(10), is_odd(7), is_even(3))  # expect: True True False


def count_paths(rows, cols):
    memo = {}

    def walk(r, c):
        if r == rows - 1 or c == cols - 1:
            return 1
        if (r, c) not in memo:
            memo[r, c] = walk(r + 1, c) + walk(r, c + 1)
        return memo[r, c]

    return walk(0, 0)


print(count_paths(3, 3), count_paths(10, 10))  # expect: 6 48620
