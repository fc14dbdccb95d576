# Assigning to a name anywhere in a function makes it local everywhere in that function.
count = 0


def bump():
    count += 1  # error: UnboundLocalError: cannot access local variable 'count' where it is not associated with a value
    return count


bump()
