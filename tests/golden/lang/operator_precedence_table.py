# Operator precedence from lowest to highest, checked against explicit parentheses.
a, b, c = 2, 3, 4
print(a + b * c)  # expect: 14
print((a + b) * c)  # expect: 20
print(a * b % c)  # expect: 2
print(a - b - c)  # expect: -5
print(a ** b ** 0)  # expect: 2
print(c // a * b)  # expect: 6
print(1 + 2 << 1)  # expect: 6
print(1 | 2 ^ 3 & 1)  # expect: 3
print(a < b == True)  # expect: False
print(not a == b)  # expect: True
print(not a or b and c)  # expect: 4
print(0 or 0 and 1)  # expect: 0
print(1 if a > b else 2 + 10)  # expect: 12
print(-a * -b)  # expect: 6
print(~a + 1)  # expect: -2
print(a + b > c - 1 and b * c == 12)  # expect: True
print(2 * 3 + 4 * 5 - 6 / 2)  # expect: 23.0
f = lambda x: x + 1 if x > 0 else x - 1
print(f(1), f(-1))  # expect: 2 -2
