# A parameter without a default after one with a default.
def block(rows=8, cols):  # error:
    return rows * cols


print(block(8, 128))
