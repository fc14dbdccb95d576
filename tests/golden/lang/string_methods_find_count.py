# find and count.
text = "the cat sat on the mat"
print(text.find("at"))  # expect: 5
print(text.find("at", 6))  # expect: 9
print(text.find("dog"))  # expect: -1
print(text.count("at"))  # expect: 3
print(text.count("the"))  # expect: 2
print("aaaa".count("aa"))  # expect: 2
print("abc".count(""))  # expect: 4
i = text.find("sat")
print(text[i:i + 3])  # expect: sat
