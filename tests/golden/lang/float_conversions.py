# float() from strings and numbers, including infinities and NaN.
print(float("1.5"), float(" 2 "), float("-0.25"))  # expect: 1.5 2.0 -0.25
print(float("1e3"), float("1E-2"))  # expect: 1000.0 0.01
print(float(3), float(True))  # expect: 3.0 1.0
print(float("inf"), float("-inf"), float("nan"))  # expect: inf -inf nan
print(float("Inf"), float("NaN"), float("+inf"))  # expect: inf nan inf
print(float("infinity") == float("inf"))  # expect: True
print(float(".5"), float("5."))  # expect: 0.5 5.0
print(float("1_000.5"))  # expect: 1000.5
print(float(10 ** 16))  # expect: 1e+16
print(float("0.1") + float("0.2"))  # expect: 0.30000000000000004
