// Rung 10, warp-shuffle block fold: every warp folds its values with shuffles into one shared
// slot, and the first warp folds the slots (block_reduce, as the frameworks' BlockReduceSum).
namespace cureduce {
template <typename Load> __device__ acc_t block_value(Load load, u64 n, acc_t *) {
  return block_reduce(load_several(load, n));
}
}  // namespace cureduce
