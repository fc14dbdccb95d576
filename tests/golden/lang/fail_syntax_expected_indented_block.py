# A function header followed by an unindented body.
def kernel(x_ref, o_ref):
o_ref[...] = x_ref[...]  # error:


print("after")
