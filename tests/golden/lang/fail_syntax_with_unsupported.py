# `with` statements are outside the supported subset.
path = "data.txt"
with open(path) as fh:  # error:
    print(fh)
