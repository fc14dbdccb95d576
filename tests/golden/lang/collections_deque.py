# collections.deque: appends and pops at both ends, maxlen, rotate, indexing, iteration and repr.
from collections import deque

q = deque([1, 2, 3])
q.append(4)
q.appendleft(0)
print(q, len(q), q[0], q[-1], 3 in q, list(reversed(q)))
print(q.pop(), q.popleft(), q)
q.extend([7, 8])
q.extendleft("ab")
print(q, q.count(7), q.index(7), q.index(2, 3) if 2 in q else None)
q.rotate(2)
print(q)
q.rotate(-3)
print(q)
last = deque(maxlen=3)
for i in range(6):
    last.append(i)
print(last, last.maxlen, list(last), sum(last))
last.appendleft(-1)
print(last, deque("xyz", 2), deque())
d = deque([1, 2])
d += [3]
d[0] = 10
d.insert(1, 5)
d.remove(2)
print(d, d == deque([10, 5, 3]), d + deque([9]), deque([0]) * 3, d.copy() is d)
d.reverse()
print(d, bool(deque()), [x * 2 for x in d])
# expect: deque([0, 1, 2, 3, 4]) 5 0 4 True [4, 3, 2, 1, 0]
# expect: 4 0 deque([1, 2, 3])
# expect: deque(['b', 'a', 1, 2, 3, 7, 8]) 1 5 3
# expect: deque([7, 8, 'b', 'a', 1, 2, 3])
# expect: deque(['a', 1, 2, 3, 7, 8, 'b'])
# expect: deque([3, 4, 5], maxlen=3) 3 [3, 4, 5] 12
# expect: deque([-1, 3, 4], maxlen=3) deque(['y', 'z'], maxlen=2) deque([])
# expect: deque([10, 5, 3]) True deque([10, 5, 3, 9]) deque([0, 0, 0]) False
# expect: deque([3, 5, 10]) False [6, 10, 20]
