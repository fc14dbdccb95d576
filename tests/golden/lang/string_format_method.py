# str.format with positional, indexed and named fields.
print("{} + {} = {}".format(1, 2, 3))  # expect: 1 + 2 = 3
print("{0}{1}{0}".format("ab", "-"))  # expect: ab-ab
print("{name} has {n} items".format(name="cart", n=3))  # expect: cart has 3 items
print("{:>6}|{:<6}|{:^6}|".format("r", "l", "c"))  # expect:      r|l     |  c   |
print("{:.3f}".format(2 / 3))  # expect: 0.667
print("{0:05d} {0:x}".format(255))  # expect: 00255 ff
print("{{literal}} {}".format("braces"))  # expect: {literal} braces
template = "grid=({rows}, {cols})"
print(template.format(cols=4, rows=2))  # expect: grid=(2, 4)
print("{!r}".format("quoted"))  # expect: 'quoted'
