# Exponent, general and percent formats.
x = 1234.5
print(f"{x:e}")  # expect: 1.234500e+03
print(f"{x:.2e}")  # expect: 1.23e+03
print(f"{0.00012:.1E}")  # expect: 1.2E-04
print(f"{x:g}")  # expect: 1234.5
print(f"{1234567.0:g}")  # expect: 1.23457e+06
print(f"{0.0001:g}")  # expect: 0.0001
print(f"{0.00001:g}")  # expect: 1e-05
print(f"{x:.3g}")  # expect: 1.23e+03
print(f"{100.0:g}")  # expect: 100
print(f"{0.25:%}")  # expect: 25.000000%
print(f"{0.256:.1%}")  # expect: 25.6%
print(f"{2 / 3:.0%}")  # expect: 67%
