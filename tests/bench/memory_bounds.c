// Memory bounds in C for rows of reductions.shard (run by tests/bench/run.sh in the same run,
// 4096x4096 float32 = 64 MiB, best of 10; prints "name seconds" lines):
//   memcpy_1thread           memcpy of the 64 MiB (glibc; the "memcpy bound")
//   read_1thread / 2threads  summing the 64 MiB (eight AVX-512 accumulators), one thread or
//                            two each summing half: what a reduction must read
//   add_one_2threads         out = in + 1, two threads each streaming half (shard's add_one)
//   transpose_add_*          out = in.T + 1 with shard's tiles (codegen/elementwise_kernel):
//                            16x16 tiles transposed in registers by the same shuffle rounds,
//                            stepping along the source rows inside blocks of B x B elements;
//                            "2threads" is shard's layout on 2 devices (each thread its
//                            [2048, 4096] rows into its own [4096, 2048] result), "nt" writes
//                            with non-temporal stores, "plain" with ordinary ones.
//   cc -O3 -march=native -pthread memory_bounds.c -o memory_bounds
#define _GNU_SOURCE
#include <immintrin.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { N = 4096, REPEATS = 10 };

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

// The shuffle rounds of codegen/transpose_tile: round k swaps the off-diagonal k x k blocks.
static int idx[4][2][16];
static void init_idx(void) {
  for (int q = 0, k = 1; k < 16; k <<= 1, ++q)
    for (int c = 0; c < 16; ++c) {
      idx[q][0][c] = (c & k) ? 16 + (c ^ k) : c;
      idx[q][1][c] = (c & k) ? 16 + c : (c | k);
    }
}

static inline __attribute__((always_inline)) void transpose16(__m512 r[16]) {
#pragma GCC unroll 4
  for (int q = 0; q < 4; ++q) {
    const int k = 1 << q;
    const __m512i lo = _mm512_loadu_si512(idx[q][0]), hi = _mm512_loadu_si512(idx[q][1]);
#pragma GCC unroll 16
    for (int i = 0; i < 16; ++i)
      if (!(i & k)) {
        const __m512 a = r[i], p = r[i | k];
        r[i] = _mm512_permutex2var_ps(a, lo, p);
        r[i | k] = _mm512_permutex2var_ps(a, hi, p);
      }
  }
}

typedef struct {
  const float* src;
  float* dst;
  long rows, cols;  // src [rows][cols] -> dst [cols][rows]
  long block;
  int nt;
} Job;

// shard's loop order: blocks along the result's rows (source columns), then the result's
// columns; inside a block, 16 source rows at a time, tiles stepping along them.
static void transpose_add(const Job* j) {
  const long R = j->rows, C = j->cols, B = j->block;
  const __m512 one = _mm512_set1_ps(1.0f);
  for (long bj = 0; bj < C; bj += B)
    for (long bi = 0; bi < R; bi += B)
      for (long i = bi; i < bi + B; i += 16)
        for (long c = bj; c < bj + B; c += 16) {
          __m512 r[16];
          for (int k = 0; k < 16; ++k) r[k] = _mm512_loadu_ps(j->src + (i + k) * C + c);
          transpose16(r);
          for (int k = 0; k < 16; ++k) {
            const __m512 v = _mm512_add_ps(r[k], one);
            float* at = j->dst + (c + k) * R + i;
            if (j->nt) _mm512_stream_ps(at, v);
            else _mm512_storeu_ps(at, v);
          }
        }
  if (j->nt) _mm_sfence();
}

typedef struct {
  const float* src;
  float* dst;
  long n;
  float sum;
} Stream;

static void add_one(Stream* s) {
  const __m512 one = _mm512_set1_ps(1.0f);
  for (long i = 0; i < s->n; i += 16) _mm512_storeu_ps(s->dst + i, _mm512_add_ps(_mm512_loadu_ps(s->src + i), one));
}

static void read_sum(Stream* s) {
  __m512 acc[8];
  for (int k = 0; k < 8; ++k) acc[k] = _mm512_setzero_ps();
  for (long i = 0; i < s->n; i += 128)
    for (int k = 0; k < 8; ++k) acc[k] = _mm512_add_ps(acc[k], _mm512_loadu_ps(s->src + i + 16 * k));
  for (int k = 1; k < 8; ++k) acc[0] = _mm512_add_ps(acc[0], acc[k]);
  s->sum = _mm512_reduce_add_ps(acc[0]);
}

static void* run_transpose(void* p) { transpose_add((Job*)p); return NULL; }
static void* run_add_one(void* p) { add_one((Stream*)p); return NULL; }
static void* run_read(void* p) { read_sum((Stream*)p); return NULL; }

// Runs fn on a second thread with arg1 and here with arg0; best of REPEATS.
static double best_two(void* (*fn)(void*), void* arg0, void* arg1) {
  double best = 1e9;
  for (int r = 0; r < REPEATS; ++r) {
    const double t0 = now();
    pthread_t th;
    if (arg1) pthread_create(&th, NULL, fn, arg1);
    fn(arg0);
    if (arg1) pthread_join(th, NULL);
    const double t = now() - t0;
    if (t < best) best = t;
  }
  return best;
}

int main(void) {
  init_idx();
  const size_t bytes = (size_t)N * N * sizeof(float);
  float* a = aligned_alloc(64, bytes);
  float* b = aligned_alloc(64, bytes);
  for (long i = 0; i < (long)N * N; ++i) a[i] = (float)i * 1e-6f;
  memset(b, 0, bytes);  // pages touched: shard's output buffers come from its buffer cache
  const long half = (long)N * N / 2;

  double best = 1e9;
  for (int r = 0; r < REPEATS; ++r) {
    const double t0 = now();
    memcpy(b, a, bytes);
    const double t = now() - t0;
    if (t < best) best = t;
  }
  printf("memcpy_1thread %.6g\n", best);

  Stream whole = {a, b, (long)N * N, 0}, s0 = {a, b, half, 0}, s1 = {a + half, b + half, half, 0};
  printf("read_1thread %.6g\n", best_two(run_read, &whole, NULL));
  printf("read_2threads %.6g\n", best_two(run_read, &s0, &s1));
  printf("add_one_2threads %.6g\n", best_two(run_add_one, &s0, &s1));

  Job t0 = {a, b, N / 2, N, 64, 1}, t1 = {a + half, b + half, N / 2, N, 64, 1};
  printf("transpose_add_2threads_nt %.6g\n", best_two(run_transpose, &t0, &t1));
  t0.nt = t1.nt = 0;
  t0.block = t1.block = 256;
  printf("transpose_add_2threads_plain %.6g\n", best_two(run_transpose, &t0, &t1));
  Job one = {a, b, N, N, 64, 1};
  printf("transpose_add_1thread_nt %.6g\n", best_two(run_transpose, &one, NULL));
  if (whole.sum + s0.sum + s1.sum == 12345.f) printf("\n");  // keeps the sums
  free(a);
  free(b);
  return 0;
}
