# Doubled braces print literal braces.
k = "a"
print(f"{{}}")  # expect: {}
print(f"{{{k}}}")  # expect: {a}
print(f"dict: {{'{k}': {1}}}")  # expect: dict: {'a': 1}
print(f"{{k}}")  # expect: {k}
print(f"set() vs {{}}: {len({})}")  # expect: set() vs {}: 0
