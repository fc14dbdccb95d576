# Floor division rounds toward negative infinity, also for floats.
print(7 // 2)  # expect: 3
print(-7 // 2)  # expect: -4
print(7 // -2)  # expect: -4
print(-7 // -2)  # expect: 3
print(-1 // 10)  # expect: -1
print(7.5 // 2)  # expect: 3.0
print(-7.5 // 2)  # expect: -4.0
print(-6 // 3)  # expect: -2


def cdiv(a, b):
    return -(-a // b)


print(cdiv(10, 4), cdiv(12, 4), cdiv(1, 128))  # expect: 3 3 1
