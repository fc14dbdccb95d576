# divmod and pow, including negative operands and modular exponentiation.
print(divmod(17, 5))  # expect: (3, 2)
print(divmod(-17, 5))  # expect: (-4, 3)
print(divmod(17, -5))  # expect: (-4, -3)
print(divmod(7.5, 2))  # expect: (3.0, 1.5)
q, r = divmod(1000, 128)
print(q, r)  # expect: 7 104
print(pow(2, 10))  # expect: 1024
print(pow(2, 10, 1000))  # expect: 24
print(pow(3, 200, 13))  # expect: 9
print(pow(2.0, 3))  # expect: 8.0
print(pow(4, 0.5))  # expect: 2.0
print(pow(2, -3))  # expect: 0.125
minutes, seconds = divmod(200, 60)
print(f"{minutes}m{seconds}s")  # expect: 3m20s
