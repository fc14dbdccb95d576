# A class with __init__, class and instance attributes, methods, property, classmethod, staticmethod.
class Tile:
    count = 0

    def __init__(self, rows, cols):
        self.rows = rows
        self.cols = cols
        Tile.count += 1

    def area(self):
        return self.rows * self.cols

    @property
    def shape(self):
        return (self.rows, self.cols)

    @classmethod
    def square(cls, n):
        return cls(n, n)

    @staticmethod
    def lanes():
        return 128


t = Tile(8, 128)
s = Tile.square(4)
print(t.area(), t.shape, s.shape, Tile.count)
print(Tile.lanes(), t.lanes(), type(t).__name__, Tile.__name__)
t.rows = 16
print(t.area(), vars(s))
print(isinstance(t, Tile), isinstance(3, Tile), hasattr(t, "cols"), getattr(t, "missing", None))
setattr(t, "extra", 1)
print(t.extra, Tile.area(t))
# expect: 1024 (8, 128) (4, 4) 2
# expect: 128 128 Tile Tile
# expect: 2048 {'rows': 4, 'cols': 4}
# expect: True False True None
# expect: 1 2048
