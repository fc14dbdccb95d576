# Merge sort.
def merge(left, right):
    out = []
    i = j = 0
    while i < len(left) and j < len(right):
        if left[i] <= right[j]:
            out.append(left[i])
            i += 1
        else:
            out.append(right[j])
            j += 1
    return out + left[i:] + right[j:]


def merge_sort(xs):
    if len(xs) <= 1:
        return xs
    mid = len(xs) // 2
    return merge(merge_sort(xs[:mid]), merge_sort(xs[mid:]))


data = [38, 27, 43, 3, 9, 82, 10, 3]
print(merge_sort(data))  # expect: [3, 3, 9, 10, 27, 38, 43, 82]
print(merge_sort([]), merge_sort([1]))  # expect: [] [1]
print(merge_sort(data) == sorted(data))  # expect: True
