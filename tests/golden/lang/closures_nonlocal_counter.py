# Closures keep their enclosing variables alive; nonlocal rebinds them.
def make_counter(start=0):
    count = start

    def increment(step=1):
        nonlocal count
        count += step
        return count

    return increment


c1 = make_counter()
c2 = make_counter(100)
print(c1(), c1(), c1(5))  # expect: 1 2 7
print(c2(), c1())  # expect: 101 8


def make_accumulator():
    history = []

    def add(x):
        history.append(x)
        return sum(history)

    return add


acc = make_accumulator()
acc(1)
acc(2)
print(acc(3))  # expect: 6
