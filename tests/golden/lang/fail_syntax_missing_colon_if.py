# An if statement without its colon.
x = 3
if x > 2  # error:
    print("big")
print("after")
