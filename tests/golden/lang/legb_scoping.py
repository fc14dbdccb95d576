# Name lookup goes Local, Enclosing, Global, Builtin.
x = "global"


def outer():
    x = "enclosing"

    def inner():
        return x

    def shadow():
        x = "local"
        return x

    return inner(), shadow(), x


print(outer())  # expect: ('enclosing', 'local', 'enclosing')
print(x)  # expect: global


def uses_builtin():
    return len("abc")


def read_global():
    return x.upper()


print(uses_builtin(), read_global())  # expect: 3 GLOBAL


def assign_in_branch(flag):
    if flag:
        y = "set"
    else:
        y = "other"
    return y

print(assign_in_branch(True), assign_in_branch(False))  # expect: set other
