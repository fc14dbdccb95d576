# Raw strings keep backslashes as they are.
path = r"C:\new\table"
print(path)  # expect: C:\new\table
print(len(r"\n"), len("\n"))  # expect: 2 1
print(r"\d+\.\d*")  # expect: \d+\.\d*
print(r'quote: \'')  # expect: quote: \'
print(repr(r"a\tb"))  # expect: 'a\\tb'
print(r"\\" == "\\\\")  # expect: True
