# sorted() with key= and reverse=; ties keep their input order.
people = [("bob", 25), ("ada", 31), ("cy", 25), ("dee", 19)]
print(sorted(people, key=lambda p: p[1]))
# expect: [('dee', 19), ('bob', 25), ('cy', 25), ('ada', 31)]
print(sorted(people, key=lambda p: p[1], reverse=True))
# expect: [('ada', 31), ('bob', 25), ('cy', 25), ('dee', 19)]
print(sorted(people))  # expect: [('ada', 31), ('bob', 25), ('cy', 25), ('dee', 19)]
print(sorted("pallas"))  # expect: ['a', 'a', 'l', 'l', 'p', 's']
print(sorted({3: "c", 1: "a"}))  # expect: [1, 3]
print(sorted([-3, 2, -1], key=abs, reverse=True))  # expect: [-3, 2, -1]
print(sorted(["B", "a", "C"], key=lambda s: s.lower()))  # expect: ['a', 'B', 'C']
print(sorted([]))  # expect: []
print(sorted([2, 1], reverse=False))  # expect: [1, 2]
