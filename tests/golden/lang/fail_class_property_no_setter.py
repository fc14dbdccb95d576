# Assigning to a read-only property fails as in CPython 3.11.
class Tile:
    @property
    def rows(self):
        return 8


t = Tile()
t.rows = 4  # error: AttributeError: property 'rows' of 'Tile' object has no setter
