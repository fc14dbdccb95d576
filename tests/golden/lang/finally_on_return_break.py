# finally runs on return, break and continue too.
def early():
    try:
        return "returned"
    finally:
        print("finally before return")


print(early())
# expect: finally before return
# expect: returned
for i in range(3):
    try:
        if i == 1:
            continue
        if i == 2:
            break
        print("body", i)
    finally:
        print("finally", i)
# expect: body 0
# expect: finally 0
# expect: finally 1
# expect: finally 2


def cleanup_on_error():
    try:
        raise ValueError("boom")
    finally:
        print("cleanup ran")


try:
    cleanup_on_error()
except ValueError as e:
    print("caught", e)
# expect: cleanup ran
# expect: caught boom
