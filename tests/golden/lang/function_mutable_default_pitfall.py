# A default value is evaluated once, so a mutable default is shared between calls.
def append_to(item, bucket=[]):
    bucket.append(item)
    return bucket


print(append_to(1))  # expect: [1]
print(append_to(2))  # expect: [1, 2]
print(append_to(3, []))  # expect: [3]
print(append_to(4))  # expect: [1, 2, 4]


def append_safe(item, bucket=None):
    if bucket is None:
        bucket = []
    bucket.append(item)
    return bucket


print(append_safe(1), append_safe(2))  # expect: [1] [2]
