# An uncaught exception raised three calls deep.
def validate(x):
    if x < 0:
        raise ValueError(f"negative input: {x}")  # error: ValueError: negative input: -3
    return x


def process(xs):
    return [validate(x) for x in xs]


def main():
    print(process([1, 2]))  # expect: [1, 2]
    print(process([1, -3]))


main()
