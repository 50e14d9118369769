// This kernel's operation and accumulator, folded across a warp and a block; its partials and
// results stored and loaded.

namespace cureduce {

// ---- This kernel's choices --------------------------------------------------------------------
typedef mapped_reduction<CUREDUCE_OP> op;
typedef op::acc acc_t;
typedef element<CUREDUCE_INPUT>::storage input_t;

// How many accumulators a thread folds its loads into: one a load, so that the folds of a round do
// not wait on each other; logsumexp's all into one. Its folds wait on each other only through the
// running largest's compare, not through the exps, while every accumulator more costs two exps
// when a thread's accumulators are combined, and spends its first element's exp on an empty
// accumulator's -inf (at 2^20 f64 elements, 8 a thread with four accumulators: 15 exps a thread,
// the warp fold's rescale counted, where one accumulator takes 9).
template <typename A> struct accumulators_of {
  static const int count = CUREDUCE_UNROLL;
};
template <typename F> struct accumulators_of<log_sum<F> > {
  static const int count = 1;
};
const int thread_accumulators = accumulators_of<acc_t>::count;

// ---- Warp and block building blocks ----------------------------------------------------------
template <typename T> __device__ __forceinline__ T shuffle_down(T v, int offset) {
  return __shfl_down_sync(0xffffffffu, v, offset);
}
__device__ __forceinline__ signed char shuffle_down(signed char v, int offset) {
  return (signed char)__shfl_down_sync(0xffffffffu, (int)v, offset);
}
__device__ __forceinline__ unsigned char shuffle_down(unsigned char v, int offset) {
  return (unsigned char)__shfl_down_sync(0xffffffffu, (unsigned)v, offset);
}
template <typename K> __device__ __forceinline__ arg_acc<K> shuffle_down(arg_acc<K> p, int offset) {
  p.key = shuffle_down(p.key, offset);
  p.index = shuffle_down(p.index, offset);
  return p;
}
// Accumulators of several plain numbers move as their 32-bit words.
template <typename T> union words_of {
  T value;
  unsigned word[sizeof(T) / 4];
};
template <typename T> __device__ __forceinline__ T shuffle_words_down(T v, int offset) {
  words_of<T> w;
  w.value = v;
#pragma unroll
  for (int i = 0; i < (int)(sizeof(T) / 4); i++) w.word[i] = __shfl_down_sync(0xffffffffu, w.word[i], offset);
  return w.value;
}
__device__ __forceinline__ norm2_sums shuffle_down(norm2_sums s, int offset) { return shuffle_words_down(s, offset); }
__device__ __forceinline__ moments shuffle_down(moments m, int offset) { return shuffle_words_down(m, offset); }
template <typename F> __device__ __forceinline__ log_sum<F> shuffle_down(log_sum<F> l, int offset) {
  return shuffle_words_down(l, offset);
}

// Folds a full warp's values with shuffles; lane 0 holds the result.
template <typename A> struct warp_fold {
  static __device__ __forceinline__ A reduce(A v) {
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) v = op::combine(v, shuffle_down(v, offset));
    return v;
  }
};
// A float or double summed over a warp's lanes in shuffle_down's tree, the sum in lane 0.
template <typename F> __device__ __forceinline__ F warp_sum_down(F v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}
// Three f64 sums of a warp's lanes, each folded in the tree of shuffle_down's fold (lane l adds
// lane l + 16, then l + 8, ...), so with the same bits, but with the work split between the lanes:
// at offset 16 the lower half-warp keeps the first two sums and the upper half the third (and a
// zero), trading the others; at offset 8 each half splits its pair again; the last three levels
// move one double. 12 shuffles, and 4 to bring the sums to lane 0, where the three sums at every
// level took 30: an SM shuffles 32 lanes a clock, and at 2^20 elements the moments' warp folds of
// a launch (512 blocks, nine folds each: its eight warps', then warp 0's) queue some 1100 shuffles
// an SM, about 0.55 us, where a sum's take 0.18. The lanes' partners are by xor: where lane l
// meets l + d, lane l + d computes the same sum in the other order, which IEEE addition leaves the
// same.
__device__ __forceinline__ void warp_sum_three(double &first, double &second, double &third) {
  const int lane = threadIdx.x % 32;
  const bool upper_half = lane & 16, upper_quarter = lane & 8;
  double kept_a = upper_half ? third : first, kept_b = upper_half ? 0.0 : second;
  kept_a += __shfl_xor_sync(0xffffffffu, upper_half ? first : third, 16);
  kept_b += __shfl_xor_sync(0xffffffffu, upper_half ? second : 0.0, 16);
  double kept = upper_quarter ? kept_b : kept_a;
  kept += __shfl_xor_sync(0xffffffffu, upper_quarter ? kept_a : kept_b, 8);
#pragma unroll
  for (int offset = 4; offset > 0; offset >>= 1) kept += __shfl_xor_sync(0xffffffffu, kept, offset);
  // Lane 0 now holds the first sum, lane 8 the second, lane 16 the third.
  first = kept;
  second = __shfl_sync(0xffffffffu, kept, 8);
  third = __shfl_sync(0xffffffffu, kept, 16);
}
// The moments of one sequence share its shift: a warp adds sums, squares and counts, and takes
// the shift of a lane that holds elements (the others may have none), which the tree's shuffles
// hide.
template <> struct warp_fold<moments> {
  static __device__ __forceinline__ moments reduce(moments v) {
    const unsigned holders = __ballot_sync(0xffffffffu, v.count != 0.0);
    v.shift = __shfl_sync(0xffffffffu, v.shift, holders ? __ffs(holders) - 1 : 0);
    warp_sum_three(v.sum, v.squares, v.count);
    return v;
  }
};
// norm2's f64 sums: nearly always only the middle one holds anything, and then the warp folds it
// alone, a double a level; else all three (warp_sum_three). Adding zeros changes no sum, so the
// result is the same bits either way.
template <> struct warp_fold<norm2_sums> {
  static __device__ __forceinline__ norm2_sums reduce(norm2_sums v) {
    if (__any_sync(0xffffffffu, v.small != 0.0 || v.big != 0.0)) {
      warp_sum_three(v.small, v.medium, v.big);
      return v;
    }
    v.medium = warp_sum_down(v.medium);
    return v;
  }
};
#if __CUDA_ARCH__ >= 800
// The largest integer key of the lanes that hold one, by the warp's integer max instruction
// (redux.sync; a 64-bit key's high word, then its low word among those with that high word): one
// or two instructions where a shuffle tree takes five levels, each waiting on the one before.
__device__ __forceinline__ int warp_largest_key(int key, bool holds) {
  return __reduce_max_sync(0xffffffffu, holds ? key : -0x7fffffff - 1);
}
__device__ __forceinline__ long long warp_largest_key(long long key, bool holds) {
  const int high = (int)(key >> 32), largest_high = warp_largest_key(high, holds);
  const unsigned low = __reduce_max_sync(0xffffffffu, holds && high == largest_high ? (unsigned)key : 0u);
  return (long long)((u64)(unsigned)largest_high << 32 | low);
}
#endif
// logsumexp's merge takes two exps a level (ten a lane); the warp first agrees on its largest
// element and each lane rescales once to it, then each level adds. The largest (never a NaN) is
// the largest of the floats' ordered integer keys (order_key: -0 below +0, which changes no sum).
template <typename F> __device__ __forceinline__ F warp_largest(F v) {
#if __CUDA_ARCH__ >= 800
  typedef order_key<sizeof(F) == 8 ? CUREDUCE_DTYPE_F64 : CUREDUCE_DTYPE_F32> key;
  return key::storage(warp_largest_key(key::of(v), true));
#else
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) v = fmax(v, __shfl_xor_sync(0xffffffffu, v, offset));
  return v;
#endif
}
template <typename F> struct warp_fold<log_sum<F> > {
  static __device__ __forceinline__ log_sum<F> reduce(log_sum<F> v) {
    const F largest = warp_largest(v.largest);  // never NaN: a NaN element leaves it alone
    return log_sum<F>{largest, warp_sum_down(v.sum * log_sum_scale(v.largest, largest))};
  }
};
#if __CUDA_ARCH__ >= 800
// argmin and argmax: the largest key (warp_largest_key), then the smallest index among its holders
// by two integer mins, word by word the same way. The shuffle tree took five levels of three
// shuffles and a compare chain each, and the arg kernels fold twice a launch on their latency
// path. Empty lanes take no part, and a warp of them stays empty.
__device__ __forceinline__ u64 warp_first_index(u64 index, bool holds) {
  const unsigned high = (unsigned)(index >> 32);
  const unsigned smallest_high = __reduce_min_sync(0xffffffffu, holds ? high : ~0u);
  const unsigned low = __reduce_min_sync(0xffffffffu, holds && high == smallest_high ? (unsigned)index : ~0u);
  return (u64)smallest_high << 32 | low;
}
template <typename K> struct warp_fold<arg_acc<K> > {
  static __device__ __forceinline__ arg_acc<K> reduce(arg_acc<K> v) {
    const bool holds = v.index != arg_acc<K>::empty;
    const K largest = warp_largest_key(v.key, holds);
    v.index = warp_first_index(v.index, holds && v.key == largest);
    v.key = largest;
    return v;
  }
};
#endif
__device__ __forceinline__ acc_t warp_reduce(acc_t v) { return warp_fold<acc_t>::reduce(v); }

// Folds a block's values: each warp with shuffles, then warp 0 folds one slot per warp.
// Thread 0 holds the result. The caller separates two calls with __syncthreads().
__device__ __forceinline__ acc_t block_reduce(acc_t v) {
  __shared__ acc_t warp_results[CUREDUCE_BLOCK / 32];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  v = warp_reduce(v);
  if (lane == 0) warp_results[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < CUREDUCE_BLOCK / 32 ? warp_results[lane] : op::identity();
    v = warp_reduce(v);
  }
  return v;
}

// Writes the result in the output type: for argmin/argmax the value, then the index at byte 8.
template <typename A> __device__ __forceinline__ void store_result(void *out, A a) {
  typedef element<CUREDUCE_OUTPUT> O;
  *(typename O::storage *)out = O::from_value((typename O::value)a);
}
template <typename V> __device__ __forceinline__ void store_result(void *out, arg_pair<V> a) {
  store_result(out, a.value);
  *(long long *)((char *)out + 8) = a.index;
}
// A variance or standard deviation: a whole cureduce_value, the mean at byte 16.
__device__ __forceinline__ void store_result(void *out, spread_pair a) {
  store_result(out, a.value);
  *(long long *)((char *)out + 8) = -1;
  store_result((char *)out + 16, a.mean);
}

// Partials cross between blocks through L2: volatile accesses keep them out of the
// non-coherent L1.
template <typename T> __device__ __forceinline__ void store_partial(T *p, T v) { *(volatile T *)p = v; }
template <typename T> __device__ __forceinline__ T load_partial(const T *p) { return *(const volatile T *)p; }
template <typename K> __device__ __forceinline__ void store_partial(arg_acc<K> *p, arg_acc<K> v) {
  store_partial(&p->key, v.key);
  store_partial(&p->index, v.index);
}
template <typename K> __device__ __forceinline__ arg_acc<K> load_partial(const arg_acc<K> *p) {
  arg_acc<K> v;
  v.key = load_partial(&p->key);
  v.index = load_partial(&p->index);
  return v;
}
template <typename T> __device__ __forceinline__ void store_partial_words(T *p, T v) {
  words_of<T> w;
  w.value = v;
#pragma unroll
  for (int i = 0; i < (int)(sizeof(T) / 4); i++) store_partial((unsigned *)p + i, w.word[i]);
}
template <typename T> __device__ __forceinline__ T load_partial_words(const T *p) {
  words_of<T> w;
#pragma unroll
  for (int i = 0; i < (int)(sizeof(T) / 4); i++) w.word[i] = load_partial((const unsigned *)p + i);
  return w.value;
}
__device__ __forceinline__ void store_partial(norm2_sums *p, norm2_sums v) { store_partial_words(p, v); }
__device__ __forceinline__ norm2_sums load_partial(const norm2_sums *p) { return load_partial_words(p); }
__device__ __forceinline__ void store_partial(moments *p, moments v) { store_partial_words(p, v); }
__device__ __forceinline__ moments load_partial(const moments *p) { return load_partial_words(p); }
template <typename F> __device__ __forceinline__ void store_partial(log_sum<F> *p, log_sum<F> v) { store_partial_words(p, v); }
template <typename F> __device__ __forceinline__ log_sum<F> load_partial(const log_sum<F> *p) { return load_partial_words(p); }

}  // namespace cureduce
