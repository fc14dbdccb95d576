# A recursive function without a base case.
def countdown(n):
    return countdown(n - 1)  # error: RecursionError: maximum recursion depth exceeded


countdown(10)
