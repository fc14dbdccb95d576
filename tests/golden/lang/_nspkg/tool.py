# A module in a namespace package (a folder without `__init__.py`).
def shout(s):
    return s.upper() + "!"
