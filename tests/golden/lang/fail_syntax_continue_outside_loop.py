# continue at module level, outside any loop.
for i in range(3):
    print(i)
continue  # error:
print("after")
