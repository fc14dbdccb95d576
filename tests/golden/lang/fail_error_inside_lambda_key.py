# An error inside a sort key lambda points at the lambda's line.
words = ["tpu", "gpu"]
ranked = sorted(
    words,
    key=lambda w: w.lenght,  # error: AttributeError: 'str' object has no attribute 'lenght'
)
