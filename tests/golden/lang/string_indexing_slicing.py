# Indexing and slicing strings.
s = "pallas"
print(s[0], s[-1], s[2])  # expect: p s l
print(s[1:4])  # expect: all
print(s[:3], s[3:])  # expect: pal las
print(s[::-1])  # expect: sallap
print(s[::2])  # expect: pla
print(s[-3:])  # expect: las
print(s[1:-1])  # expect: alla
print(s[4:1:-1])  # expect: all
print(repr(s[10:]), s[:100])  # expect: '' pallas
print(s[-100:2])  # expect: pa
for i, ch in enumerate("ab"):
    print(i, ch)
# expect: 0 a
# expect: 1 b
print("-".join(s[i] for i in range(0, len(s), 2)))  # expect: p-l-a
