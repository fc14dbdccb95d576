try:
    x = 1 / 0
except (ZeroDivisionError, ValueError) as e:
    raise RuntimeError("bad") from e
except Exception:
    raise
else:
    del x
finally:
    pass
