# Single and double quotes and the common escape sequences.
print('single', "double")  # expect: single double
print("it's", 'say "hi"')  # expect: it's say "hi"
print('it\'s', "say \"hi\"")  # expect: it's say "hi"
print("tab:\t|")  # expect: tab:	|
print("line1\nline2")
# expect: line1
# expect: line2
print("back\\slash")  # expect: back\slash
print("\x41\x42C")  # expect: ABC
print(len("a\nb"), len("\\n"))  # expect: 3 2
print("col1\tcol2".split("\t"))  # expect: ['col1', 'col2']
print("a\
b")  # expect: ab
print("null:[\0]" == "null:[\x00]")  # expect: True
