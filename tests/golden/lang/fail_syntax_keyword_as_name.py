# `lambda` is a keyword, so it cannot name a learning rate.
steps = 10
lambda = 0.5  # error:
decay = 0.9
print(steps * decay)
