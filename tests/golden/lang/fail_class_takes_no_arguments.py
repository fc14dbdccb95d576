# A class without __init__ takes no arguments.
class Empty:
    pass


e = Empty(1)  # error: TypeError: Empty() takes no arguments
