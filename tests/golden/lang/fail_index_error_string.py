# Indexing past the end of a string.
word = "tpu"
for i in range(len(word)):
    print(word[i], end="")
print()  # expect: tpu
print(word[3])  # error: IndexError: string index out of range
