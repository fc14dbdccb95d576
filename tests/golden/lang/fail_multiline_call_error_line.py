# In a call spread over several lines, the error points at the failing argument.
def combine(a, b, c):
    return a + b + c


result = combine(
    10,
    int("ten"),  # error: ValueError: invalid literal for int() with base 10: 'ten'
    30,
)
