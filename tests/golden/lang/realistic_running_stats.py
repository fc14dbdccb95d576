# Mean, variance and a normalised copy of some measurements.
import math

samples = [2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]
n = len(samples)
mean = sum(samples) / n
var = sum((x - mean) ** 2 for x in samples) / n
std = math.sqrt(var)
print(mean, var, std)  # expect: 5.0 4.0 2.0
normalised = [round((x - mean) / std, 2) for x in samples]
print(normalised)  # expect: [-1.5, -0.5, -0.5, -0.5, 0.0, 0.0, 1.0, 2.0]
running = []
total = 0.0
for i, x in enumerate(samples, start=1):
    total += x
    running.append(total / i)
print(f"{running[2]:.4f} {running[-1]:.1f}")  # expect: 3.3333 5.0
print(max(samples) - min(samples))  # expect: 7.0
