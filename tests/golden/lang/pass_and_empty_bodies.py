# pass and `...` as placeholder bodies.
def not_yet():
    pass


for _ in range(3):
    pass
if True:
    pass
else:
    ...
while False:
    pass
try:
    pass
except ValueError:
    pass
print(not_yet())  # expect: None
print(_)  # expect: 2
