# Towers of Hanoi: the moves for three discs.
moves = []


def hanoi(n, src, dst, via):
    if n == 0:
        return
    hanoi(n - 1, src, via, dst)
    moves.append(f"{src}->{dst}")
    hanoi(n - 1, via, dst, src)


hanoi(3, "A", "C", "B")
print(len(moves))  # expect: 7
print(" ".join(moves))  # expect: A->C A->B C->B A->C B->A B->C A->C
