# A character that is not part of the language.
price = 5
total = price $ 2  # error:
print(total)
