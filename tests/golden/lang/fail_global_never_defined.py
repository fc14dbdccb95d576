# A global statement does not create the variable.
def tick():
    global ticks
    ticks += 1  # error: NameError: name 'ticks' is not defined


tick()
