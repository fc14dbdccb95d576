# if / elif / else chains.
def grade(score):
    if score >= 90:
        return "A"
    elif score >= 80:
        return "B"
    elif score >= 70:
        return "C"
    else:
        return "F"


print([grade(s) for s in (95, 85, 70, 12)])  # expect: ['A', 'B', 'C', 'F']
x = 0
if x:
    print("truthy")
elif x == 0:
    print("zero")  # expect: zero
else:
    print("other")
if x > 10:
    print("never")
print("after")  # expect: after
n = 15
if n % 3 == 0:
    if n % 5 == 0:
        print("FizzBuzz")  # expect: FizzBuzz
    else:
        print("Fizz")
