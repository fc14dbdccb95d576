# bytes are immutable: build a new value instead of assigning to an index.
packet = b"\x01\x02\x03"
fixed = packet[:1] + b"\xff" + packet[2:]
print(fixed)  # expect: b'\x01\xff\x03'
packet[1] = 255  # error: TypeError: 'bytes' object does not support item assignment
