# A required keyword-only argument left out.
def make_spec(shape, *, index_map):
    return shape, index_map


make_spec((8, 128))  # error: TypeError: make_spec() missing 1 required keyword-only argument: 'index_map'
