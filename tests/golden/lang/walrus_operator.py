# The walrus operator: in conditions, while loops and comprehensions (binding in the enclosing scope).
if (n := len([1, 2, 3])) > 2:
    print("n is", n)
squares = [y for x in range(6) if (y := x * x) % 2 == 0]
print(squares, y)
data = [3, 1, 4]
while (item := data.pop()) != 1:
    print("popped", item)


def first_long(words):
    for word in words:
        if (size := len(word)) > 3:
            return word, size
    return None


print(first_long(["ab", "abcd", "xyzzy"]))
# expect: n is 3
# expect: [0, 4, 16] 25
# expect: popped 4
# expect: ('abcd', 4)
