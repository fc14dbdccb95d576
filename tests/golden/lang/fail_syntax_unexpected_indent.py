# A line indented deeper than the block it is in.
x = 1
    y = 2  # error:
print(x + y)
