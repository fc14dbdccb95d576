# Imported by import_star_public.py: no `__all__`, so `*` binds the names without `_`.
alpha = 1
beta = [2, 3]
_hidden = 4


def gamma():
    return alpha + _hidden
