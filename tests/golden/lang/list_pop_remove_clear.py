# Shrinking lists: pop, remove, clear.
xs = [10, 20, 30, 40, 50]
print(xs.pop())  # expect: 50
print(xs.pop(0))  # expect: 10
print(xs.pop(-2))  # expect: 30
print(xs)  # expect: [20, 40]
ys = [1, 2, 3, 2, 1]
ys.remove(2)
print(ys)  # expect: [1, 3, 2, 1]
print(ys.remove(1), ys)  # expect: None [3, 2, 1]
alias = ys
ys.clear()
print(alias, len(alias))  # expect: [] 0
stack = [1, 2, 3]
while stack:
    print(stack.pop(), end=" ")
print("done")  # expect: 3 2 1 done
