# time's clocks and sleep, and timeit with a callable; only deterministic facts are printed.
import time
import timeit

start = time.perf_counter()
start_ns = time.perf_counter_ns()
mono = time.monotonic()
time.sleep(0.02)
elapsed = time.perf_counter() - start
print(elapsed >= 0.02, elapsed < 10, type(start).__name__, type(start_ns).__name__)
print(time.perf_counter_ns() > start_ns, time.monotonic() >= mono, time.time() > 1.6e9)
print(time.time_ns() > 1_600_000_000 * 10**9, type(time.process_time()).__name__)
print(timeit.default_timer is time.perf_counter, timeit.timeit(number=5) >= 0)
calls = []
total = timeit.timeit(lambda: calls.append(len(calls)), number=7)
print(len(calls), calls[-1], type(total).__name__, total >= 0)
runs = timeit.repeat(lambda: sum(range(100)), number=10, repeat=3)
print(len(runs), all(r >= 0 for r in runs))
try:
    time.sleep(-1)
except ValueError as e:
    print(e)
# expect: True True float int
# expect: True True True
# expect: True float
# expect: True True
# expect: 7 6 float True
# expect: 3 True
# expect: sleep length must be non-negative
