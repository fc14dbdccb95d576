# round() rounds halves to even; with ndigits it works on the binary value.
print(round(2.5), round(3.5), round(-2.5))  # expect: 2 4 -2
print(round(0.5), round(1.5))  # expect: 0 2
print(round(2.4), round(2.6), round(-2.6))  # expect: 2 3 -3
print(round(3.14159, 2))  # expect: 3.14
print(round(2.675, 2))  # expect: 2.67
print(round(0.125, 2))  # expect: 0.12
print(round(1.0005, 3))  # expect: 1.0
print(round(7.0, 0))  # expect: 7.0
print(round(1234.5678, -2))  # expect: 1200.0
print(round(15, -1), round(25, -1))  # expect: 20 20
print(round(7))  # expect: 7
print(round(-0.4))  # expect: 0
print(round(1 / 3, 4))  # expect: 0.3333
