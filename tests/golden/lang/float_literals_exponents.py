# Float literals: exponents, leading/trailing dots, underscores.
print(1e-3)  # expect: 0.001
print(1E3)  # expect: 1000.0
print(2.5e2)  # expect: 250.0
print(.5)  # expect: 0.5
print(5.)  # expect: 5.0
print(1_000.5)  # expect: 1000.5
print(3.14e-10)  # expect: 3.14e-10
print(1e-5)  # expect: 1e-05
print(6.02e23)  # expect: 6.02e+23
print(0.0, -0.0)  # expect: 0.0 -0.0
learning_rate = 3e-4
print(learning_rate * 10)  # expect: 0.0029999999999999996
