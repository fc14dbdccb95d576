# Concatenating a string and a number.
count = 3
print("items: " + str(count))  # expect: items: 3
label = "items: " + count  # error: TypeError: can only concatenate str (not "int") to str
print(label)
