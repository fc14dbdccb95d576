# A triple-quoted string that never ends: reported where it starts.
x = 1
doc = """This docstring  # error:
never ends
print(x)
