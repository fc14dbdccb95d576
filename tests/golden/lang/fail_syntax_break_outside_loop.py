# break is only meaningful inside a loop.
def stop(x):
    if x > 3:
        break  # error:
    return x
