# A running product that outgrows 64 bits.
result = 1
for i in range(1, 30):
    result *= i  # error: OverflowError
print(result)
