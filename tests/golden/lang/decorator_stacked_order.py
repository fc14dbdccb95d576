# Stacked decorators apply bottom-up and run top-down.
def tag(name):
    print("making", name)

    def decorate(fn):
        print("applying", name)

        def wrapper(x):
            return f"<{name}>{fn(x)}</{name}>"

        return wrapper

    return decorate


@tag("b")
@tag("i")
def text(x):
    return x


# expect: making b
# expect: making i
# expect: applying i
# expect: applying b
print(text("hi"))  # expect: <b><i>hi</i></b>
