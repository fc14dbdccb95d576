# A for loop's else runs only when the loop was not broken out of.
def find_divisor(n):
    for d in range(2, n):
        if n % d == 0:
            print(n, "divisible by", d)
            break
    else:
        print(n, "is prime")


find_divisor(15)  # expect: 15 divisible by 3
find_divisor(13)  # expect: 13 is prime
for x in []:
    print("never")
else:
    print("empty loop runs else")  # expect: empty loop runs else
primes = [n for n in range(2, 30) if all(n % d for d in range(2, n))]
print(primes)  # expect: [2, 3, 5, 7, 11, 13, 17, 19, 23, 29]
