# args: --max-steps 100000
# An infinite loop stopped by the step limit.
print("before")  # expect: before
n = 0
while True: pass  # error: step
print("never")
