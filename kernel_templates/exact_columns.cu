// exact_sum of columns (exact.cuh holds how): a warp a column, the block's warps on adjacent
// columns, which read the same stretches of each row (L1 serves the others what one brought in):
// tiles of `warps` columns, tile blockIdx.x, then gridDim.x tiles further, ... Each warp walks its
// column's elements, `leading` apart, and sums them exactly into digits of its own in shared
// memory. With one split (gridDim.y) it rounds them; with several, split y takes the y-th of
// gridDim.y equal stretches of the rows, the tile's blocks add their warps' digits into the tile's
// words in the workspace, and the last of them to finish rounds every column of the tile
// (gather_block_words). The loads are single elements, a row apart: a narrow matrix reads whole
// sectors for a few of their bytes.

const unsigned warps = CUREDUCE_BLOCK / 32;

extern "C" __global__ void __launch_bounds__(CUREDUCE_BLOCK, min_resident_blocks)
    cureduce_kernel(const input_t *__restrict__ input, shape_t shape, void *out, void *partials, void *tickets,
                    const input_t *) {
  __shared__ s64 warp_words[warps][block_word_count];  // one after another: the tile's words
  const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const u64 stretch = (shape.rows + gridDim.y - 1) / gridDim.y, first_row = blockIdx.y * stretch;
  const u64 rows = first_row < shape.rows ? min(stretch, shape.rows - first_row) : 0;
  s64 *words = warp_words[warp];
  for (u64 tile = blockIdx.x; tile * warps < shape.cols; tile += gridDim.x) {
    const u64 col = tile * warps + warp;
    clear_words(words, lane, 32);
    __syncwarp();
    warp_state w;
    w.start();
    if (col < shape.cols) read_input(w, input + first_row * shape.leading + col, rows, lane, 32, shape.leading);
    add_to_block_words(w, words);
    __syncthreads();
    if (gridDim.y == 1 || gather_block_words(&warp_words[0][0], (s64 *)partials + tile * warps * block_word_count,
                                             warps * block_word_count, (unsigned *)tickets + tile, gridDim.y))
      if (col < shape.cols) round_warp_words(result_at(out, col), words);
    __syncthreads();  // the next tile clears the words that this one's rounding reads
  }
}
