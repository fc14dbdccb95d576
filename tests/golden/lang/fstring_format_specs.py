# Float format specs: fixed point, precision and width.
x = 3.14159265
print(f"{x:.6f}")  # expect: 3.141593
print(f"{x:.2f}")  # expect: 3.14
print(f"{x:.0f}")  # expect: 3
print(f"{2.5:.0f} {3.5:.0f}")  # expect: 2 4
print(f"[{x:10.3f}]")  # expect: [     3.142]
print(f"[{x:<10.3f}]")  # expect: [3.142     ]
print(f"{-x:.1f}")  # expect: -3.1
print(f"{1:.2f}")  # expect: 1.00
print(f"{1e-7:.3f}")  # expect: 0.000
print(f"{2.675:.2f}")  # expect: 2.67
print(f"{x:f}")  # expect: 3.141593
print(f"{1234567.891:.1f}")  # expect: 1234567.9
print(f"{float('inf'):.2f} {float('nan'):.2f}")  # expect: inf nan
