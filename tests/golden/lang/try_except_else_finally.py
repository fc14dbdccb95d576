# The order in which try / except / else / finally blocks run.
def attempt(x):
    try:
        print("try", x)
        result = 10 // x
    except ZeroDivisionError:
        print("except")
        result = None
    else:
        print("else", result)
    finally:
        print("finally")
    return result


print(attempt(2))
# expect: try 2
# expect: else 5
# expect: finally
# expect: 5
print(attempt(0))
# expect: try 0
# expect: except
# expect: finally
# expect: None
try:
    print("no error")  # expect: no error
finally:
    print("cleanup")  # expect: cleanup
