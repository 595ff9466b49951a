#!/usr/bin/env bash
# Runs every benchmark side by side with its reference in one run and prints ratios
# (reference time / shard time: > 1 means shard is faster). Not part of the test suite.
#   bash tests/bench/run.sh [build-dir]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../build}
shard=$build/src/shard
py=/usr/bin/python3  # Debian's python3 has numpy
# OpenBLAS's core-type overrides (the environment's OPENBLAS_CORETYPE=Haswell) slow GEMM down:
# every side runs without them, so shard and numpy use the same OpenBLAS kernels.
unset OPENBLAS_CORETYPE OPENBLAS_L2_SIZE
echo "shard $(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo '?'), $(date -u +%Y-%m-%d), $(nproc) cores"

# side_by_side SHARD_PROGRAM NUMPY_PROGRAM: pairs their "name seconds" lines in order. The
# two run one after the other, so neither competes with the other for the 2 cores.
side_by_side() {
  local a b
  a=$("$shard" "$1")
  b=$("$py" "$2")
  paste <(echo "$a") <(echo "$b") | while read -r name s _ n; do
    awk -v name="$name" -v s="$s" -v n="$n" 'BEGIN {
      unit = (s < 1e-3) ? 1e6 : 1e3; u = (s < 1e-3) ? "us" : "ms";
      printf "%-20s shard %9.2f %s   numpy %9.2f %s   numpy/shard %.4gx\n", name, s*unit, u, n*unit, u, n/s }'
  done
}

echo "== eager ops (8 devices available; arrays on device 0)"
side_by_side "$here/eager_ops.shard" "$here/numpy_eager_ops.py"

echo "== jit (8 devices; numpy's compile_*/retrace_* is one eager run of the same ops)"
side_by_side "$here/jit_ops.shard" "$here/numpy_jit_ops.py"

echo "== control flow (compiled loops; numpy runs the same loops in Python; fori_psum on 2 devices)"
side_by_side "$here/control_flow.shard" "$here/numpy_control_flow.py"

echo "== reductions and data movement (4096x4096 float32, rows sharded over 2 devices; jit, best of 5)"
red_s=$("$shard" "$here/reductions.shard")
red_n=$("$py" "$here/numpy_reductions.py")
red_t=$("$py" -c "import torch" 2>/dev/null && "$py" "$here/torch_reductions.py" || true)
paste <(echo "$red_s") <(echo "$red_n") | while read -r name s _ n; do
  t=$(echo "$red_t" | awk -v k="$name" '$1 == k { print $2 }')
  awk -v name="$name" -v s="$s" -v n="$n" -v t="$t" 'BEGIN {
    line = sprintf("%-16s shard %8.2f ms   numpy %8.2f ms   numpy/shard %.3gx", name, s*1e3, n*1e3, n/s)
    if (t != "") line = line sprintf("   torch %8.2f ms   torch/shard %.3gx", t*1e3, t/s)
    print line }'
done

# The memory bounds of three of those rows, in C (tests/bench/memory_bounds.c), right after them.
if command -v "${CC:-cc}" >/dev/null; then
  echo "== memory bounds in C of 64 MiB (tests/bench/memory_bounds.c: best of 10; ratio = shard / bound, 1 is at the bound)"
  "${CC:-cc}" -O3 -march=native -pthread "$here/memory_bounds.c" -o "$build/memory_bounds_bench"
  bounds=$("$build/memory_bounds_bench")
  printf '%s\n%s\n' "$red_s" "$bounds" | awk '
    { t[$1] = $2 }
    END {
      ms = 1e3
      printf "memcpy, 1 thread           %8.2f ms\n", t["memcpy_1thread"] * ms
      printf "transpose_add              shard %8.2f ms   C, same tiles, 2 threads: streaming stores %8.2f ms, ordinary %8.2f ms (1 thread, streaming %.2f ms)   shard/C %.3gx   shard/memcpy %.3gx\n",
             t["transpose_add"] * ms, t["transpose_add_2threads_nt"] * ms, t["transpose_add_2threads_plain"] * ms, t["transpose_add_1thread_nt"] * ms,
             t["transpose_add"] / t["transpose_add_2threads_nt"], t["transpose_add"] / t["memcpy_1thread"]
      printf "add_one                    shard %8.2f ms   C, 2 threads %8.2f ms   shard/C %.3gx\n",
             t["add_one"] * ms, t["add_one_2threads"] * ms, t["add_one"] / t["add_one_2threads"]
      printf "max_last                   shard %8.2f ms   C read, 2 threads %8.2f ms   shard/C %.3gx\n",
             t["max_last"] * ms, t["read_2threads"] * ms, t["max_last"] / t["read_2threads"]
      printf "sum_first_1dev             shard %8.2f ms   C read, 1 thread %8.2f ms   shard/C %.3gx\n",
             t["sum_first_1dev"] * ms, t["read_1thread"] * ms, t["sum_first_1dev"] / t["read_1thread"]
    }'
fi

echo "== complex arithmetic and FFTs (jit; numpy's FFTs compute in float64, shard's float32 ones in float32)"
side_by_side "$here/complex_ops.shard" "$here/numpy_complex_ops.py"

echo "== placement (512 MiB host <-> 8 devices; numpy copies the bytes once: the memcpy bound)"
side_by_side "$here/placement.shard" "$here/numpy_placement.py"

echo "== shard_map collectives (8 devices; numpy copies the bytes one device ends with)"
side_by_side "$here/shard_map_collectives.shard" "$here/numpy_memcpy.py"

if [ -x "$build/tests/bench/bench_collectives" ]; then
  echo "== runtime collectives (8 device threads)"
  "$build/tests/bench/bench_collectives"
fi

if command -v mpirun >/dev/null && command -v mpicc >/dev/null; then
  echo "== psum of 64 MiB per device across processes (2 processes x 4 devices) against Open MPI's MPI_Allreduce"
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  mpicc -O2 "$here/mpi_allreduce.c" -o "$build/mpi_allreduce_bench"
  read -r _ s2 < <(mpirun --oversubscribe -np 2 "$shard" --devices 4 "$here/multiprocess_psum.shard" </dev/null)
  read -r _ s1 < <("$shard" --devices 8 "$here/multiprocess_psum.shard")
  read -r _ m8 < <(mpirun --oversubscribe -np 8 "$build/mpi_allreduce_bench" 64 </dev/null)
  read -r _ m2 < <(mpirun --oversubscribe -np 2 "$build/mpi_allreduce_bench" 64 </dev/null)
  awk -v s2="$s2" -v s1="$s1" -v m8="$m8" -v m2="$m2" 'BEGIN {
    printf "psum_64MiB_2x4        shard %7.1f ms   MPI_Allreduce 8 ranks %7.1f ms   mpi/shard %.3gx\n", s2*1e3, m8*1e3, m8/s2
    printf "psum_64MiB_1x8        shard %7.1f ms   (one process, shared memory only)\n", s1*1e3
    printf "MPI_Allreduce 2 ranks       %7.1f ms   (the between-process part of the 2x4 psum)\n", m2*1e3 }'
fi

# PyTorch (Debian's python3-torch) is a benchmark peer only: installed here when missing,
# never by the test suite.
if ! "$py" -c "import torch" 2>/dev/null; then
  echo "(installing python3-torch for the training benchmark)"
  if [ "$(id -u)" = 0 ]; then apt-get install -y -qq python3-torch >/dev/null; else sudo apt-get install -y -qq python3-torch >/dev/null; fi
fi
echo "== training step (MLP 1024->4096->1024, batch 2048; shard on 2 devices, PyTorch 2 threads)"
s_out=$("$shard" "$here/train_step.shard")
t_out=$("$py" "$here/torch_train_step.py")
n_out=$("$py" "$here/numpy_train_step.py")
paste <(echo "$s_out") <(echo "$t_out") <(echo "$n_out") |
  while read -r name s _ t _ n; do
    awk -v name="$name" -v s="$s" -v t="$t" -v n="$n" 'BEGIN {
      printf "%-20s shard %8.1f ms   torch %8.1f ms   numpy %8.1f ms   torch/shard %.3gx   numpy/shard %.3gx\n",
             name, s*1e3, t*1e3, n*1e3, t/s, n/s }'
  done

echo "== vmap (an MLP layer over 4096 examples) against the same layer batched by hand"
"$shard" "$here/vmap_mlp.shard" | paste - - | while read -r name s _ h; do
  awk -v s="$s" -v h="$h" 'BEGIN { printf "vmap_mlp_layer       vmap %8.2f ms   by hand %8.2f ms   hand/vmap %.3gx\n", s*1e3, h*1e3, h/s }'
done
