# Comparing a string with a number.
threshold = "10"
for v in [5, 20]:
    if v > threshold:  # error: TypeError: '>' not supported between instances of 'int' and 'str'
        print(v)
