# Keeping the result of list.sort(), which is None.
xs = [3, 1, 2]
print(sorted(xs))  # expect: [1, 2, 3]
xs = xs.sort()
xs.append(4)  # error: AttributeError: 'NoneType' object has no attribute 'append'
