# The remainder takes the sign of the divisor.
print(7 % 3)  # expect: 1
print(-7 % 3)  # expect: 2
print(7 % -3)  # expect: -2
print(-7 % -3)  # expect: -1
print(-1 % 128)  # expect: 127
print(5.5 % 2)  # expect: 1.5
print(-5.5 % 2)  # expect: 0.5
print(10 % 5)  # expect: 0
for a in (-3, -2, -1, 0, 1, 2, 3):
    print(a % 3, end=",")
print("end")  # expect: 0,1,2,0,1,2,0,end
n = -17
print(n == (n // 5) * 5 + n % 5)  # expect: True
