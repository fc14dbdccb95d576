# A misspelled keyword argument.
def scale(x, factor=2):
    return x * factor


scale(3, factr=4)  # error: TypeError: scale() got an unexpected keyword argument 'factr'
