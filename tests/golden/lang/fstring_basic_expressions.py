# f-strings evaluate arbitrary expressions, including calls and subscripts.
name = "vadd"
sizes = [8, 128]
print(f"kernel {name}")  # expect: kernel vadd
print(f"{sizes[0] * sizes[1]} elements")  # expect: 1024 elements
print(f"{len(name)} chars, upper {name.upper()}")  # expect: 4 chars, upper VADD
print(f"{'nested quotes'}")  # expect: nested quotes
print(f"{sizes}")  # expect: [8, 128]
print(f"{1 + 2}{3}")  # expect: 33
print(f"{None} {True} {2.50}")  # expect: None True 2.5
d = {"k": 1}
print(f"value={d['k']}")  # expect: value=1
print(F"upper prefix {name}")  # expect: upper prefix vadd
print(f"{'yes' if sizes else 'no'}")  # expect: yes
print(f"{(lambda x: x * 2)(21)}")  # expect: 42
