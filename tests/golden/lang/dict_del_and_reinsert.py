# Deleting entries while iterating over a copy of the keys.
scores = {"ada": 90, "bob": 45, "cy": 70, "dee": 30}
for name in list(scores):
    if scores[name] < 50:
        del scores[name]
print(scores)  # expect: {'ada': 90, 'cy': 70}
scores["bob"] = 55
print(list(scores))  # expect: ['ada', 'cy', 'bob']
inverted = {v: k for k, v in scores.items()}
print(inverted[70])  # expect: cy
