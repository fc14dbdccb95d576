# while loops, with an else that runs when the condition becomes false.
n = 27
steps = 0
while n != 1:
    n = n // 2 if n % 2 == 0 else 3 * n + 1
    steps += 1
print(steps)  # expect: 111
i = 0
while i < 3:
    i += 1
else:
    print("finished at", i)  # expect: finished at 3
i = 0
while True:
    i += 1
    if i == 5:
        break
else:
    print("not printed")
print(i)  # expect: 5
