# Using container truthiness as a loop condition: a work queue.
queue = [1]
seen = []
while queue:
    node = queue.pop(0)
    seen.append(node)
    if node < 8:
        queue.extend([node * 2, node * 2 + 1])
print(seen)  # expect: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]
text = "a-b-c"
while "-" in text:
    text = text.replace("-", "", 1)
print(text)  # expect: abc
