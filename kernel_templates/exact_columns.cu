// exact_sum of columns (exact.cuh holds how): a warp a column, the block's warps on adjacent
// columns, which read the same stretches of each row (L1 serves the others what one brought in);
// columns blockIdx.x * warps + warp, then gridDim.x * warps further, ... Each warp walks its
// column's elements, `leading` apart, sums them exactly into digits of its own in shared memory
// and rounds once. Nothing crosses warps, so there is no workspace, and a column's bits, like a
// whole array's, depend on nothing but its elements. The loads are single elements, a row apart:
// a narrow matrix reads whole sectors for a few of their bytes.

const unsigned warps = CUREDUCE_BLOCK / 32;

extern "C" __global__ void __launch_bounds__(CUREDUCE_BLOCK, min_resident_blocks)
    cureduce_kernel(const input_t *__restrict__ input, shape_t shape, void *out, void *, void *, const input_t *) {
  __shared__ s64 warp_words[warps][block_word_count];
  const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  s64 *words = warp_words[warp];
  for (u64 col = (u64)blockIdx.x * warps + warp; col < shape.cols; col += (u64)gridDim.x * warps) {
    clear_words(words, lane, 32);
    __syncwarp();
    warp_state w;
    w.start();
    read_input(w, input + col, shape.rows, lane, 32, shape.leading);
    add_to_block_words(w, words);
    __syncwarp();
    round_warp_words(result_at(out, col), words);
    __syncwarp();  // the next column clears the words that this one's rounding reads
  }
}
