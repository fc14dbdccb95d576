# Reading an attribute an instance never set names the class.
class Tile:
    def __init__(self, rows):
        self.rows = rows


t = Tile(8)
print(t.rows)  # expect: 8
print(t.cols)  # error: AttributeError: 'Tile' object has no attribute 'cols'
