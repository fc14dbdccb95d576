# A string literal missing its closing quote.
kernel = "vadd"
name = "vadd  # error:
print(name)
