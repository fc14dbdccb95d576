# `...` is the Ellipsis value; None is the absence of a value.
print(...)  # expect: Ellipsis
x = ...
print(x is ..., x == ...)  # expect: True True
print([..., None])  # expect: [Ellipsis, None]


def todo():
    ...


def nothing():
    pass


print(todo(), nothing())  # expect: None None
print(None is None, None == 0, None == "")  # expect: True False False
result = None
if result is None:
    result = "filled"
print(result)  # expect: filled
print(repr(None), str(None))  # expect: None None
print(bool(...))  # expect: True
