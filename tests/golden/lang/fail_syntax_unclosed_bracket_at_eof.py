# A list literal still open at the end of the file.
shape = (8, 128)
blocks = [  # error:
    (0, 0),
    (0, 1),
