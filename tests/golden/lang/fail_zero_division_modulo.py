# Modulo by zero.
n = 10
for k in (3, 0):
    print(n % k)  # error: ZeroDivisionError: integer modulo by zero
# expect: 1
