# Float division by zero raises too (no inf as in NumPy).
x = 1.5
y = 0.0
print(x * y)  # expect: 0.0
print(x / y)  # error: ZeroDivisionError: float division by zero
