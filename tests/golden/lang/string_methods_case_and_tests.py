# Case conversion and prefix, suffix and digit tests.
name = "Pallas Call"
print(name.upper(), name.lower())  # expect: PALLAS CALL pallas call
print(name.startswith("Pal"), name.endswith("call"))  # expect: True False
print(name.lower().endswith("call"))  # expect: True
print("kernel.py".endswith((".py", ".ipynb")))  # expect: True
print("x_ref".startswith(("o_", "x_")))  # expect: True
print("2024".isdigit(), "20.5".isdigit(), "".isdigit())  # expect: True False False
print("-3".isdigit())  # expect: False
tokens = ["12", "abc", "7"]
print([int(t) for t in tokens if t.isdigit()])  # expect: [12, 7]
