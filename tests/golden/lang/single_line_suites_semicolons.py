# One-line suites after the colon, and several statements per line with `;`.
x = 3; y = 4; print(x + y)  # expect: 7
if x < y: print("less")  # expect: less
for i in range(2): print(i)
# expect: 0
# expect: 1
def sq(v): return v * v
print(sq(9))  # expect: 81
while x > 0: x -= 1
print(x)  # expect: 0
if x: print("no")
else: print("else branch")  # expect: else branch
