# `=` where `==` was meant.
n = 4
if n = 4:  # error:
    print("four")
else:
    print("other")
