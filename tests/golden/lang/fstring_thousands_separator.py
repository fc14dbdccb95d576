# Grouping separators for large numbers.
print(f"{1234567:,}")  # expect: 1,234,567
print(f"{1234567:_}")  # expect: 1_234_567
print(f"{-9876543:,}")  # expect: -9,876,543
print(f"{999:,}")  # expect: 999
print(f"{1234567.891:,.2f}")  # expect: 1,234,567.89
print(f"{1000000.0:,}")  # expect: 1,000,000.0
print(f"{123456:>12,}")  # expect:      123,456
flops = 2 * 1024 * 1024 * 1024
print(f"{flops:,} FLOPs")  # expect: 2,147,483,648 FLOPs
