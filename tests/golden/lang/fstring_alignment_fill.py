# Width, alignment and fill characters.
x = "ab"
print(f"[{x:>8}]")  # expect: [      ab]
print(f"[{x:<8}]")  # expect: [ab      ]
print(f"[{x:^8}]")  # expect: [   ab   ]
print(f"[{x:*^7}]")  # expect: [**ab***]
print(f"[{x:-<5}]")  # expect: [ab---]
print(f"[{42:>6}]")  # expect: [    42]
print(f"[{42:<6}]")  # expect: [42    ]
print(f"[{42:6}]")  # expect: [    42]
print(f"[{'s':6}]")  # expect: [s     ]
print(f"[{-5:=6}]")  # expect: [-    5]
print(f"[{'toolong':3}]")  # expect: [toolong]
print(f"[{3.5:8}]")  # expect: [     3.5]
for name, ms in [("tpu", 1.5), ("interpret", 12.25)]:
    print(f"{name:<10}{ms:>8.2f} ms")
# expect: tpu           1.50 ms
# expect: interpret    12.25 ms
