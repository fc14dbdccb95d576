# The printf-style % operator on strings (older code still uses it).
n = 3
print("%d items" % n)  # expect: 3 items
print("%.2f" % 3.14159)  # expect: 3.14
print("%s and %s" % ("this", "that"))  # expect: this and that
print("[%5d]" % 42)  # expect: [   42]
print("[%-5s]" % "ab")  # expect: [ab   ]
print("%x %o" % (255, 8))  # expect: ff 10
print("100%%")  # expect: 100%%
print("%d%%" % 50)  # expect: 50%
print("%r" % "q")  # expect: 'q'
print("%05.1f" % 2.25)  # expect: 002.2
print("%s" % [1, 2])  # expect: [1, 2]
