# A `seen` set to drop duplicates while keeping first-occurrence order.
def dedupe(items):
    seen = set()
    out = []
    for item in items:
        if item not in seen:
            seen.add(item)
            out.append(item)
    return out


print(dedupe([3, 1, 3, 2, 1]))  # expect: [3, 1, 2]
print(dedupe("banana"))  # expect: ['b', 'a', 'n']
print(len(set([1, 1.0, True])))  # expect: 1
s = {5}
s.add(5)
s.add(6)
print(len(s), sorted(s))  # expect: 2 [5, 6]
