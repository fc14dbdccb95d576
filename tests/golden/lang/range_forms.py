# range with one, two and three arguments, including negative steps.
print(list(range(5)))  # expect: [0, 1, 2, 3, 4]
print(list(range(2, 6)))  # expect: [2, 3, 4, 5]
print(list(range(0, 10, 3)))  # expect: [0, 3, 6, 9]
print(list(range(5, 0, -1)))  # expect: [5, 4, 3, 2, 1]
print(list(range(10, 0, -4)))  # expect: [10, 6, 2]
print(list(range(3, 3)), list(range(5, 1)))  # expect: [] []
print(list(range(-3, 0)))  # expect: [-3, -2, -1]
print(len(range(0, 10, 3)), len(range(10, 0, -3)))  # expect: 4 4
print(range(5)[2], range(0, 20, 5)[-1])  # expect: 2 15
print(range(2, 10, 3))  # expect: range(2, 10, 3)
print(range(4))  # expect: range(0, 4)
total = 0
for i in range(1, 101):
    total += i
print(total)  # expect: 5050
