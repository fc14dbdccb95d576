# with: __enter__/__exit__ order, `as` targets, several items, an exception the manager swallows.
class Scope:
    def __init__(self, name):
        self.name = name

    def __enter__(self):
        print("enter", self.name)
        return self.name.upper()

    def __exit__(self, kind, value, traceback):
        print("exit", self.name, kind.__name__ if kind else None)
        return kind is KeyError


with Scope("a") as a, Scope("b") as b:
    print("body", a, b)
with Scope("c"):
    raise KeyError("swallowed")
try:
    with Scope("d"):
        raise ValueError("kept")
except ValueError as e:
    print("caught", e)
# expect: enter a
# expect: enter b
# expect: body A B
# expect: exit b None
# expect: exit a None
# expect: enter c
# expect: exit c KeyError
# expect: enter d
# expect: exit d ValueError
# expect: caught kept
