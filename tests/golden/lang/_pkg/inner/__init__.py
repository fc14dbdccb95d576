# A subpackage of _pkg.
