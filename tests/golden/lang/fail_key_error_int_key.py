# A missing int key; the message shows the key's repr.
squares = {i: i * i for i in range(3)}
print(squares)  # expect: {0: 0, 1: 1, 2: 4}
print(5 in squares)  # expect: False
print(squares[5])  # error: KeyError: 5
