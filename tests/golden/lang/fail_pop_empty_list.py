# Popping more items than the stack holds.
stack = [1]
print(stack.pop())  # expect: 1
print(stack)  # expect: []
stack.pop()  # error: IndexError: pop from empty list
