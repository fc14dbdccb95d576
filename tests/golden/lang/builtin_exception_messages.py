# The messages of exceptions raised by the language and builtins.
def message(fn):
    try:
        fn()
    except Exception as e:
        return str(e)
    return "no error"


print(message(lambda: 1 / 0))  # expect: division by zero
print(message(lambda: 1 // 0))  # expect: integer division or modulo by zero
print(message(lambda: 5 % 0))  # expect: integer modulo by zero
print(message(lambda: 1.0 / 0))  # expect: float division by zero
print(message(lambda: [1][3]))  # expect: list index out of range
print(message(lambda: (1,)[3]))  # expect: tuple index out of range
print(message(lambda: "ab"[5]))  # expect: string index out of range
print(message(lambda: {"a": 1}["b"]))  # expect: 'b'
print(message(lambda: int("4.5")))  # expect: invalid literal for int() with base 10: '4.5'
print(message(lambda: float("abc")))  # expect: could not convert string to float: 'abc'
print(message(lambda: [].pop()))  # expect: pop from empty list
print(message(lambda: [1].remove(2)))  # expect: list.remove(x): x not in list
print(message(lambda: [1].index(2)))  # expect: 2 is not in list
print(message(lambda: "a" + 1))  # expect: can only concatenate str (not "int") to str
print(message(lambda: 1 + "a"))  # expect: unsupported operand type(s) for +: 'int' and 'str'
print(message(lambda: undefined_name))  # expect: name 'undefined_name' is not defined
print(message(lambda: len(5)))  # expect: object of type 'int' has no len()
print(message(lambda: max([])))  # expect: max() arg is an empty sequence
print(message(lambda: "abc".nope))  # expect: 'str' object has no attribute 'nope'
print(message(lambda: None + 1))  # expect: unsupported operand type(s) for +: 'NoneType' and 'int'
