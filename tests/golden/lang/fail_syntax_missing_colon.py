# A block header without its colon.
def area(w, h)  # error:
    return w * h


print(area(2, 3))
