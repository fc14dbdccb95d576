# assert raises AssertionError, with or without a message.
def check_shape(shape):
    assert len(shape) == 2, f"expected 2 dims, got {len(shape)}"
    assert shape[-1] % 128 == 0
    return "ok"


print(check_shape((8, 128)))  # expect: ok
try:
    check_shape((8,))
except AssertionError as e:
    print("failed:", e)  # expect: failed: expected 2 dims, got 1
try:
    check_shape((8, 100))
except AssertionError as e:
    print("failed:", repr(str(e)), e.args)  # expect: failed: '' ()
assert True
assert 1 < 2, "never shown"
print("done")  # expect: done
