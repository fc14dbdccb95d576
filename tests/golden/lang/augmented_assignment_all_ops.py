# Every augmented assignment operator, on names, list items and dict items.
x = 10
x += 5
print(x)  # expect: 15
x -= 3
print(x)  # expect: 12
x *= 2
print(x)  # expect: 24
x //= 5
print(x)  # expect: 4
x **= 3
print(x)  # expect: 64
x %= 10
print(x)  # expect: 4
x /= 8
print(x)  # expect: 0.5
n = 0b1111
n &= 0b0110
n |= 0b1000
n ^= 0b0011
print(n)  # expect: 13
n <<= 2
print(n)  # expect: 52
n >>= 3
print(n)  # expect: 6
counts = [1, 2, 3]
counts[1] *= 10
counts[-1] -= 1
print(counts)  # expect: [1, 20, 2]
totals = {"a": 1}
totals["a"] += 41
print(totals)  # expect: {'a': 42}
s = "ab"
s *= 3
s += "!"
print(s)  # expect: ababab!
