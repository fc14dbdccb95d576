# Format specs may contain replacement fields themselves.
x = 3.14159
w = 10
p = 3
print(f"[{x:{w}}]")  # expect: [   3.14159]
print(f"[{x:{w}.{p}f}]")  # expect: [     3.142]
print(f"[{'ab':{'>'}{w}}]")  # expect: [        ab]
fill = "*"
print(f"[{'mid':{fill}^{w - 1}}]")  # expect: [***mid***]
rows = [("a", 1.5), ("bbb", 22.25)]
width = max(len(k) for k, _ in rows)
for k, v in rows:
    print(f"{k:<{width}} | {v:>{width + 3}.1f}")
# expect: a   |    1.5
# expect: bbb |   22.2
