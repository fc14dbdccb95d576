# list.append, not push.
stack = []
for v in (1, 2):
    stack.append(v)
print(stack)  # expect: [1, 2]
stack.push(3)  # error: AttributeError: 'list' object has no attribute 'push'
