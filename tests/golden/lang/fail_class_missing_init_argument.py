# Calling a class with too few arguments for its __init__ is CPython's TypeError.
class Tile:
    def __init__(self, rows, cols):
        self.rows = rows


t = Tile(8)  # error: TypeError: Tile.__init__() missing 1 required positional argument: 'cols'
