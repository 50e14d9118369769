// The transforms: maps from an input element to the value an operation reduces, and the operation
// on mapped values.

namespace cureduce {

// A map from an input element to the value the operation reduces, of the type `mapped`. abs clears
// the sign bit, exact in the input type, so the operation's keys and vector paths stay as they are
// (map_vector clears a whole vector's sign bits at once); square, nonzero and the caller's
// expression compute in the float accumulator type and give f32/f64 and u8 values.
template <int T, int IN> struct transform {  // none
  static const int mapped = IN;
  static __device__ __forceinline__ typename element<IN>::storage apply(typename element<IN>::storage s) { return s; }
};
__device__ __forceinline__ unsigned short clear_sign(unsigned short s) { return s & 0x7fff; }
__device__ __forceinline__ float clear_sign(float s) { return __int_as_float(__float_as_int(s) & 0x7fffffff); }
__device__ __forceinline__ double clear_sign(double s) {
  return __longlong_as_double(__double_as_longlong(s) & 0x7fffffffffffffffLL);
}
template <int IN> struct transform<CUREDUCE_TRANSFORM_ABS, IN> {
  static const int mapped = IN;
  static __device__ __forceinline__ typename element<IN>::storage apply(typename element<IN>::storage s) {
    return clear_sign(s);
  }
};
template <int IN> struct transform<CUREDUCE_TRANSFORM_SQUARE, IN> {
  static const int mapped = IN == CUREDUCE_DTYPE_F64 ? CUREDUCE_DTYPE_F64 : CUREDUCE_DTYPE_F32;
  static __device__ __forceinline__ typename element<mapped>::storage apply(typename element<IN>::storage s) {
    const typename element<mapped>::value v = element<IN>::to_value(s);
    return v * v;
  }
};
#if CUREDUCE_TRANSFORM == CUREDUCE_TRANSFORM_EXPRESSION
// The caller's map: cureduce_user_map, written by the host before this file.
template <int IN> struct transform<CUREDUCE_TRANSFORM_EXPRESSION, IN> {
  static const int mapped = IN == CUREDUCE_DTYPE_F64 ? CUREDUCE_DTYPE_F64 : CUREDUCE_DTYPE_F32;
  static __device__ __forceinline__ typename element<mapped>::storage apply(typename element<IN>::storage s) {
    return cureduce_user_map(element<IN>::to_value(s));
  }
};
#endif
// Maps of two inputs: element i of x with element i of y, in the float accumulator type; the
// loaders read both (pair_source).
#define CUREDUCE_PAIR \
  (CUREDUCE_TRANSFORM == CUREDUCE_TRANSFORM_PRODUCT || CUREDUCE_TRANSFORM == CUREDUCE_TRANSFORM_PAIR_EXPRESSION)
template <int IN> struct transform<CUREDUCE_TRANSFORM_PRODUCT, IN> {
  static const int mapped = IN == CUREDUCE_DTYPE_F64 ? CUREDUCE_DTYPE_F64 : CUREDUCE_DTYPE_F32;
  typedef typename element<mapped>::value value;
  static __device__ __forceinline__ value apply(typename element<IN>::storage x, typename element<IN>::storage y) {
    return (value)element<IN>::to_value(x) * (value)element<IN>::to_value(y);
  }
};
#if CUREDUCE_TRANSFORM == CUREDUCE_TRANSFORM_PAIR_EXPRESSION
template <int IN> struct transform<CUREDUCE_TRANSFORM_PAIR_EXPRESSION, IN> {
  static const int mapped = IN == CUREDUCE_DTYPE_F64 ? CUREDUCE_DTYPE_F64 : CUREDUCE_DTYPE_F32;
  static __device__ __forceinline__ typename element<mapped>::value apply(typename element<IN>::storage x,
                                                                          typename element<IN>::storage y) {
    return cureduce_user_map(element<IN>::to_value(x), element<IN>::to_value(y));
  }
};
#endif
template <int IN> struct transform<CUREDUCE_TRANSFORM_NONZERO, IN> {
  static const int mapped = CUREDUCE_DTYPE_U8;
  static __device__ __forceinline__ unsigned char apply(typename element<IN>::storage s) {
    return element<IN>::to_value(s) != 0;  // a NaN is not zero
  }
};

typedef transform<CUREDUCE_TRANSFORM, CUREDUCE_INPUT> map;

// What the accumulators that start from identity() share: their start, and a run folded element
// by element through Folds::fold (Folds: the element_fold that derives from this).
template <typename R, typename A, typename Folds> struct unshifted_folds {
  static const bool shifted = false;
  template <typename S> static __device__ __forceinline__ A start(S) { return R::identity(); }
  template <int N, typename S> static __device__ __forceinline__ A fold_run(A a, const S (&s)[N], u64 first_index) {
#pragma unroll
    for (int j = 0; j < N; j++) a = Folds::fold(a, s[j], first_index + j);
    return a;
  }
};

// One element into an accumulator: combine(acc, lift(element)), but for the accumulators whose
// operations fold a single element more cheaply (fold_element: the moments' and logsumexp's); and
// a run of N elements in index order, the first at first_index, which the moments fold at once.
// A sequence's accumulators start from identity(), but the moments' (shifted) from its first element.
template <typename R, typename A> struct element_fold : unshifted_folds<R, A, element_fold<R, A> > {
  template <typename S> static __device__ __forceinline__ A fold(A a, S s, u64 index) {
    return R::combine(a, R::lift(s, index));
  }
};
template <typename R> struct element_fold<R, moments> {
  static const bool shifted = true;
  template <typename S> static __device__ __forceinline__ moments start(S first) { return R::start(first); }
  template <typename S> static __device__ __forceinline__ moments fold(moments a, S s, u64) { return R::fold_element(a, s); }
  template <int N, typename S> static __device__ __forceinline__ moments fold_run(moments a, const S (&s)[N], u64) {
    return R::fold_elements(a, s);
  }
};
template <typename R> struct element_fold<R, norm2_sums> : unshifted_folds<R, norm2_sums, element_fold<R, norm2_sums> > {
  static __device__ __forceinline__ norm2_sums fold(norm2_sums a, double x, u64) {
    const double one[1] = {x};
    return R::fold_elements(a, one);
  }
  template <int N> static __device__ __forceinline__ norm2_sums fold_run(norm2_sums a, const double (&x)[N], u64) {
    return R::fold_elements(a, x);
  }
};
template <typename R, typename F>
struct element_fold<R, log_sum<F> > : unshifted_folds<R, log_sum<F>, element_fold<R, log_sum<F> > > {
  template <typename S> static __device__ __forceinline__ log_sum<F> fold(log_sum<F> a, S s, u64) {
    return R::fold_element(a, s);
  }
};

// An element whose index follows every one already in the accumulator (a column's rows, in order):
// folded as any, but by argmin and argmax through their later(), which compares no index.
template <typename R, typename A> struct later_fold {
  template <typename S> static __device__ __forceinline__ A fold(A a, S s, u64 index) {
    return element_fold<R, A>::fold(a, s, index);
  }
};
template <typename R, typename K> struct later_fold<R, arg_acc<K> > {
  template <typename S> static __device__ __forceinline__ arg_acc<K> fold(arg_acc<K> a, S s, u64 index) {
    return R::later(a, R::key(s), index);
  }
};

// The operation on mapped values, lifting and folding input elements (pairs of them, for a map of
// two inputs) through the map; fold_later and fold_pair_later: later_fold's.
template <int OP> struct mapped_reduction : reduction<OP, map::mapped> {
  typedef reduction<OP, map::mapped> base;
  typedef typename base::acc acc;
  typedef element_fold<base, acc> folds;
  typedef typename element<CUREDUCE_INPUT>::storage input_storage;
  typedef typename element<map::mapped>::storage mapped_storage;
  static const bool shifted = folds::shifted;
  static __device__ __forceinline__ acc start(mapped_storage first) { return folds::start(first); }
#if CUREDUCE_PAIR
  static __device__ __forceinline__ acc fold_pair(acc a, input_storage x, input_storage y, u64 index) {
    return folds::fold(a, map::apply(x, y), index);
  }
  static __device__ __forceinline__ acc fold_pair_later(acc a, input_storage x, input_storage y, u64 index) {
    return later_fold<base, acc>::fold(a, map::apply(x, y), index);
  }
  template <int N>
  static __device__ __forceinline__ acc fold_pair_run(acc a, const input_storage (&x)[N], const input_storage (&y)[N],
                                                      u64 first_index) {
    mapped_storage mapped[N];
#pragma unroll
    for (int j = 0; j < N; j++) mapped[j] = map::apply(x[j], y[j]);
    return folds::fold_run(a, mapped, first_index);
  }
#else
  static __device__ __forceinline__ acc lift(input_storage s, u64 index) { return base::lift(map::apply(s), index); }
  static __device__ __forceinline__ acc fold(acc a, input_storage s, u64 index) {
    return folds::fold(a, map::apply(s), index);
  }
  static __device__ __forceinline__ acc fold_later(acc a, input_storage s, u64 index) {
    return later_fold<base, acc>::fold(a, map::apply(s), index);
  }
  template <int N> static __device__ __forceinline__ acc fold_run(acc a, const input_storage (&s)[N], u64 first_index) {
    mapped_storage mapped[N];
#pragma unroll
    for (int j = 0; j < N; j++) mapped[j] = map::apply(s[j]);
    return folds::fold_run(a, mapped, first_index);
  }
#endif
};

}  // namespace cureduce
