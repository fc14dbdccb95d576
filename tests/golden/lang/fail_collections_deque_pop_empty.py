# Popping from an empty deque is an IndexError, as for a list.
from collections import deque

q = deque([1])
print(q.popleft(), len(q))  # expect: 1 0
q.popleft()  # error: IndexError: pop from an empty deque
