// Element types: the bits in memory, the values min and max compare, what sums accumulate in.
//
// Compiled only by NVRTC, after a prelude that the host writes for one kernel specification:
//   CUREDUCE_OP_*, CUREDUCE_DTYPE_*, CUREDUCE_TRANSFORM_*   the ids of the public header's enums
//   CUREDUCE_OP, CUREDUCE_INPUT, CUREDUCE_OUTPUT, CUREDUCE_TRANSFORM   this kernel's operation,
//                                                    types and the map before the operation
//   CUREDUCE_BLOCK, CUREDUCE_UNROLL, CUREDUCE_VECTOR_BYTES   its shape
// No header is included: the kernel must compile with nothing but NVRTC's built-ins. Every kernel's
// source is these templates in this order, then its strategy's (src/source.c): elements.cuh,
// operations.cuh, transforms.cuh, block_folds.cuh, vector_loads.cuh, accumulate.cuh.

namespace cureduce {

typedef unsigned long long u64;

// storage: the bits in memory. value: what min/max compare and return (exact for every type).
// wide: what sum and prod accumulate in. Integer sums wrap modulo 2^64, so every integer type
// widens to u64 (signed ones sign-extended first): two's complement makes that the same bits as
// a signed 64-bit wrap-around, without signed-overflow undefined behaviour.

template <int D> struct element;

struct float_like {
  static __device__ __forceinline__ bool is_nan(float x) { return x != x; }
  static __device__ __forceinline__ bool sign_bit(float x) { return __float_as_int(x) < 0; }
  static __device__ __forceinline__ float highest() { return __int_as_float(0x7f800000); }
  static __device__ __forceinline__ float lowest() { return __int_as_float((int)0xff800000); }
};

template <> struct element<CUREDUCE_DTYPE_F16> : float_like {
  typedef unsigned short storage;
  typedef float value;
  typedef float wide;
  static __device__ __forceinline__ float to_value(storage s) {
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(s));
    return f;
  }
  static __device__ __forceinline__ storage from_value(float f) {
    storage s;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(s) : "f"(f));
    return s;
  }
  static __device__ __forceinline__ wide to_wide(storage s) { return to_value(s); }
};

template <> struct element<CUREDUCE_DTYPE_BF16> : float_like {
  typedef unsigned short storage;
  typedef float value;
  typedef float wide;
  static __device__ __forceinline__ float to_value(storage s) {
    return __int_as_float((int)((unsigned)s << 16));
  }
  static __device__ __forceinline__ storage from_value(float f) {
#if __CUDA_ARCH__ >= 800
    storage s;
    asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(s) : "f"(f));
    return s;
#else
    // cvt.rn.bf16.f32 needs sm_80: round to nearest even by hand, NaN kept quiet.
    unsigned u = __float_as_uint(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (storage)((u >> 16) | 0x40u);
    return (storage)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
#endif
  }
  static __device__ __forceinline__ wide to_wide(storage s) { return to_value(s); }
};

template <> struct element<CUREDUCE_DTYPE_F32> : float_like {
  typedef float storage;
  typedef float value;
  typedef float wide;
  static __device__ __forceinline__ float to_value(storage s) { return s; }
  static __device__ __forceinline__ storage from_value(float f) { return f; }
  static __device__ __forceinline__ wide to_wide(storage s) { return s; }
};

template <> struct element<CUREDUCE_DTYPE_F64> {
  typedef double storage;
  typedef double value;
  typedef double wide;
  static __device__ __forceinline__ double to_value(storage s) { return s; }
  static __device__ __forceinline__ storage from_value(double d) { return d; }
  static __device__ __forceinline__ wide to_wide(storage s) { return s; }
  static __device__ __forceinline__ bool is_nan(double x) { return x != x; }
  static __device__ __forceinline__ bool sign_bit(double x) { return __double_as_longlong(x) < 0; }
  static __device__ __forceinline__ double highest() { return __longlong_as_double(0x7ff0000000000000LL); }
  static __device__ __forceinline__ double lowest() {
    return __longlong_as_double((long long)0xfff0000000000000ULL);
  }
};

// Integers: value is the storage type; NaN and signed zeros do not exist.
template <typename T, typename SIGNED_WIDE, T LOWEST, T HIGHEST> struct integer_element {
  typedef T storage;
  typedef T value;
  typedef u64 wide;
  static __device__ __forceinline__ T to_value(storage s) { return s; }
  static __device__ __forceinline__ storage from_value(T v) { return v; }
  static __device__ __forceinline__ wide to_wide(storage s) { return (u64)(SIGNED_WIDE)s; }
  static __device__ __forceinline__ bool is_nan(T) { return false; }
  static __device__ __forceinline__ bool sign_bit(T) { return false; }
  static __device__ __forceinline__ T highest() { return HIGHEST; }
  static __device__ __forceinline__ T lowest() { return LOWEST; }
};

template <> struct element<CUREDUCE_DTYPE_I8> : integer_element<signed char, long long, -128, 127> {};
template <> struct element<CUREDUCE_DTYPE_U8> : integer_element<unsigned char, u64, 0, 255> {};
template <> struct element<CUREDUCE_DTYPE_I32>
    : integer_element<int, long long, (-2147483647 - 1), 2147483647> {};
template <> struct element<CUREDUCE_DTYPE_U32> : integer_element<unsigned, u64, 0u, 4294967295u> {};
template <> struct element<CUREDUCE_DTYPE_I64>
    : integer_element<long long, long long, (-9223372036854775807LL - 1), 9223372036854775807LL> {};
template <> struct element<CUREDUCE_DTYPE_U64>
    : integer_element<u64, u64, 0ull, 18446744073709551615ull> {};

}  // namespace cureduce
