# List and tuple slices: negative indices, steps and omitted bounds.
xs = list(range(10))
print(xs[2:5])  # expect: [2, 3, 4]
print(xs[-3:])  # expect: [7, 8, 9]
print(xs[:-7])  # expect: [0, 1, 2]
print(xs[::3])  # expect: [0, 3, 6, 9]
print(xs[::-1])  # expect: [9, 8, 7, 6, 5, 4, 3, 2, 1, 0]
print(xs[8:2:-2])  # expect: [8, 6, 4]
print(xs[-1:-4:-1])  # expect: [9, 8, 7]
print(xs[5:2])  # expect: []
print(xs[1:100:4])  # expect: [1, 5, 9]
print(xs[-100:-8])  # expect: [0, 1]
t = (1, 2, 3, 4)
print(t[1:3], t[::-1])  # expect: (2, 3) (4, 3, 2, 1)
print(t[:0])  # expect: ()
n = len(xs)
print(xs[n // 2:], xs[:n // 2])  # expect: [5, 6, 7, 8, 9] [0, 1, 2, 3, 4]
