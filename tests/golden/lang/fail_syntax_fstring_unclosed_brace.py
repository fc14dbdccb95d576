# An f-string replacement field without its closing brace.
x = 3
print(f"value {x}")
print(f"value {x")  # error:
print("after")
