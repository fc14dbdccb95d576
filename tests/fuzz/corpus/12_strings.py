s = 'single' "double" '''triple
quoted''' r"\raw\n" "\x41\u00e9\t"
b = s.upper().split(",")[0].strip()
t = "a" if s else 'b'
