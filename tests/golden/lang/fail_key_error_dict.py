# Looking up a missing key.
stock = {"apple": 3, "pear": 5}
print(stock["apple"])  # expect: 3
print(stock.get("banana", 0))  # expect: 0
print(stock["banana"])  # error: KeyError: 'banana'
