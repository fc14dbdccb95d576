# Adding a number and a string read from text.
width = 8
height = "4"
print(width * 2)  # expect: 16
area = width * 2 + height  # error: TypeError: unsupported operand type(s) for +: 'int' and 'str'
