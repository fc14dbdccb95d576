# Triple-quoted strings span lines and keep quotes and indentation.
doc = """First line
  second "quoted" line
third 'line'"""
print(doc)
# expect: First line
# expect:   second "quoted" line
# expect: third 'line'
print(len(doc.splitlines()))  # expect: 3
other = '''one
two'''
print(other.split("\n"))  # expect: ['one', 'two']
empty_edges = """
middle
"""
print(repr(empty_edges))  # expect: '\nmiddle\n'


def documented():
    """A docstring is just an expression statement."""
    return 42


print(documented())  # expect: 42
