# args: --max-steps 100000
# The loop variable is never advanced, so the loop never ends.
i = 0
total = 0
while i < 10:  # error: step
    total += i
print(total)
