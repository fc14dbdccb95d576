if x = 1:
    pass
f() = 3
def g(a=1, b):
    return
  y = 2
class A:
    pass
print((1, 2]
x = [1, 2 3]
