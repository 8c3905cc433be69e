/*
 * sat_handoff.cu — microbenchmark of one hand-off between the blocks of a
 * single-pass scan: how long a block waits, from the moment its
 * predecessor has its carry, until it can use it. The one-pass SAT
 * (src/cuda/sat/sat_onepass.cu) walks chains of such hand-offs (512 tile
 * rows at 16K), so this latency times the chain length bounds it.
 *
 * A chain of N blocks, each taking its position by ticket (so it only waits
 * on a block that started before it), passes a vector of E = 128 values
 * (a tile's column carry) down the chain, each block adding one. Two ways:
 *   flag      the onepass way: E threads store the values (st.cg), a block
 *             barrier, one thread stores a state word with release; the
 *             next block's thread 0 spins on it with acquire, a barrier,
 *             then E threads load the values (ld.cg);
 *   packed    each value travels with the chain position in one 8-byte
 *             word (value low, tag high) stored and polled relaxed: each of
 *             the E threads spins on its own word, no fence, no barrier.
 * Printed: ns per hand-off (median of 5 launches after a warm-up), for
 * chains short enough that every block is resident.
 * Built in CUDA builds as skss_micro_sat; run on the lent GPU (gpu-check).
 */
#include <cuda/atomic>

#include "micro_common.cuh"

namespace {

constexpr int E = 128;

/* flag: state[i] = epoch once vals[i * E ..] hold block i's values. */
__global__ void __launch_bounds__(E) chain_flag(unsigned long long *ticket, unsigned long long base,
                                                int *state, float *vals, int epoch, float *sink) {
  __shared__ int pos;
  /* relaxed: the ticket only orders the chain (a running count: no reset) */
  if (threadIdx.x == 0) pos = (int)(atomicAdd(ticket, 1ull) - base);
  __syncthreads();
  const int i = pos;
  float v = 0;
  if (i > 0) {
    if (threadIdx.x == 0) {
      cuda::atomic_ref<int, cuda::thread_scope_device> s(state[i - 1]);
      /* spin-wait: block i-1 took its ticket first, so it is running */
      while (s.load(cuda::memory_order_acquire) != epoch) {
      }
    }
    /* thread 0's acquire precedes every thread's loads */
    __syncthreads();
    v = __ldcg(vals + (size_t)(i - 1) * E + threadIdx.x);
  }
  v += 1.0f;
  __stcg(vals + (size_t)i * E + threadIdx.x, v);
  /* every value is stored before thread 0's release */
  __syncthreads();
  if (threadIdx.x == 0) {
    cuda::atomic_ref<int, cuda::thread_scope_device> s(state[i]);
    s.store(epoch, cuda::memory_order_release);
  }
  if (threadIdx.x == 0 && i == (int)gridDim.x - 1) sink[0] = v;
}

/* packed: words[i * E + e] = (tag << 32) | bits of block i's value e. */
__global__ void __launch_bounds__(E) chain_packed(unsigned long long *ticket, unsigned long long base,
                                                  unsigned long long *words, unsigned tag, float *sink) {
  __shared__ int pos;
  if (threadIdx.x == 0) pos = (int)(atomicAdd(ticket, 1ull) - base);
  __syncthreads();
  const int i = pos;
  float v = 0;
  if (i > 0) {
    cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> w(words[(size_t)(i - 1) * E + threadIdx.x]);
    unsigned long long x;
    /* spin-wait on the word itself: it is single-copy atomic, so a matching
     * tag means its value is block i-1's (relaxed: no other data hangs on it) */
    while (((x = w.load(cuda::memory_order_relaxed)) >> 32) != tag) {
    }
    v = __uint_as_float((unsigned)x);
  }
  v += 1.0f;
  cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> o(words[(size_t)i * E + threadIdx.x]);
  o.store((unsigned long long)tag << 32 | __float_as_uint(v), cuda::memory_order_relaxed);
  if (threadIdx.x == 0 && i == (int)gridDim.x - 1) sink[0] = v;
}

}  // namespace

int main() {
  int sms = 0, per_sm = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, chain_flag, E, 0));
  const int resident = sms * per_sm;
  const int max_n = std::min(resident, 4096);
  unsigned long long *ticket = nullptr, *words = nullptr;
  int *state = nullptr;
  float *vals = nullptr, *sink = nullptr;
  CHECK(cudaMalloc(&ticket, sizeof *ticket));
  CHECK(cudaMalloc(&state, (size_t)max_n * sizeof *state));
  CHECK(cudaMalloc(&vals, (size_t)max_n * E * sizeof *vals));
  CHECK(cudaMalloc(&words, (size_t)max_n * E * sizeof *words));
  CHECK(cudaMalloc(&sink, sizeof *sink));
  CHECK(cudaMemset(state, 0, (size_t)max_n * sizeof *state));
  CHECK(cudaMemset(words, 0, (size_t)max_n * E * sizeof *words));
  CHECK(cudaMemset(ticket, 0, sizeof *ticket));
  unsigned long long issued = 0; /* tickets handed out so far */
  printf("hand-off of %d values between blocks (%d resident)\n", E, resident);
  int epoch = 0;
  /* the last block's value must be the chain's length */
  auto check = [&](int n, const char *how) {
    float got = 0;
    CHECK(cudaMemcpy(&got, sink, sizeof got, cudaMemcpyDeviceToHost));
    if (got != (float)n) {
      fprintf(stderr, "%s chain of %d ended at %g\n", how, n, got);
      exit(1);
    }
  };
  for (int n : {256, 1024, max_n}) {
    if (n > max_n) continue;
    /* each launch a fresh epoch / tag and ticket base: nothing to reset */
    const double f = micro_median_ms([&]() {
      chain_flag<<<n, E>>>(ticket, issued, state, vals, ++epoch, sink);
      issued += (unsigned long long)n;
    });
    check(n, "flag");
    const double p = micro_median_ms([&]() {
      chain_packed<<<n, E>>>(ticket, issued, words, (unsigned)++epoch, sink);
      issued += (unsigned long long)n;
    });
    check(n, "packed");
    printf("chain %5d   flag %8.1f ns/hand-off   packed %8.1f ns/hand-off\n", n, f * 1e6 / n, p * 1e6 / n);
  }
  return 0;
}
