# A handler that logs and re-raises: the error still points where it was first raised.
def parse(text):
    return int(text)  # error: ValueError: invalid literal for int() with base 10: 'ten'


def load(text):
    try:
        return parse(text)
    except ValueError:
        print("could not parse", repr(text))  # expect: could not parse 'ten'
        raise


load("ten")
