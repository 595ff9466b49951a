# The element-by-element Python version of vmap_scalar_reductions.shard.
def count(a):
    flag, v = a > 0, a
    while flag:
        flag, v = flag and (v + 1 < 5), v + 1
    return v

print([float(count(a)) for a in [0.0, 1.0, 2.0]])
print([float(a * 2) for a in [0.0, 1.0, 2.0]])
print([bool(a > 1) for a in [0.0, 1.0, 2.0]])
