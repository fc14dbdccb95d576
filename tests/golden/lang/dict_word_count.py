# Counting words and reporting the most common ones.
text = """the quick brown fox jumps over the lazy dog
the dog sleeps"""
counts = {}
for word in text.split():
    counts[word] = counts.get(word, 0) + 1
top = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:3]
for word, n in top:
    print(f"{word:<6}{n}")
# expect: the   3
# expect: dog   2
# expect: brown 1
print(len(counts))  # expect: 9
print(sum(counts.values()) == len(text.split()))  # expect: True
