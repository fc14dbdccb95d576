# Conditional expressions, nested and inside other expressions.
def classify(n):
    return "negative" if n < 0 else "zero" if n == 0 else "positive"


for n in (-3, 0, 7):
    print(classify(n))
# expect: negative
# expect: zero
# expect: positive
x = 4
print((x if x % 2 == 0 else -x) * 10)  # expect: 40
print([("even" if i % 2 == 0 else "odd") for i in range(3)])  # expect: ['even', 'odd', 'even']
size = 100
block = 128 if size > 64 else 64
print(block)  # expect: 128
print(1 if "" else 2 if [] else 3)  # expect: 3
