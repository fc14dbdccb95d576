# Classes are outside the supported subset.
class Point:  # error:
    def __init__(self, x):
        self.x = x


print("no classes")
