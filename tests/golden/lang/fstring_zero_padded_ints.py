# Zero padding and integer presentation types.
n = 7
print(f"{n:05d}")  # expect: 00007
print(f"{-n:05d}")  # expect: -0007
print(f"{n:d}")  # expect: 7
print(f"{123456:03d}")  # expect: 123456
print(f"{3.5:06.2f}")  # expect: 003.50
print(f"{-3.5:07.2f}")  # expect: -003.50
for step in range(3):
    print(f"step_{step:03d}.png")
# expect: step_000.png
# expect: step_001.png
# expect: step_002.png
