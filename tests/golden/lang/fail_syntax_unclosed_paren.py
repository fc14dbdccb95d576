# A call whose parenthesis is never closed: reported at the opening line.
values = [1, 2, 3]
total = sum(values  # error:
print(total)
