# Adjacent literals concatenate only when all are bytes or all are str.
header = b"GET " b"/index.html"
request = b"GET " "/index.html"  # error: cannot mix bytes and nonbytes literals
print(header, request)
