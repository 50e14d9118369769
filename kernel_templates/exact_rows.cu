// exact_sum of rows or segments (exact.cuh holds how): a block a row, rows blockIdx.y,
// blockIdx.y + gridDim.y, ...; the block sums its row exactly into shared digits and rounds once.
// Nothing crosses blocks, so there is no workspace, and a row's bits, like a whole array's, depend
// on nothing but its elements. A row is one block's work, however long: few long rows leave
// most of the device idle (their splits over several blocks are not built yet).

extern "C" __global__ void __launch_bounds__(CUREDUCE_BLOCK, min_resident_blocks)
    cureduce_kernel(const input_t *__restrict__ input, shape_t shape, void *out, void *, void *, const input_t *) {
  __shared__ s64 block_words[block_word_count];
  for (u64 row = blockIdx.y; row < shape.rows; row += gridDim.y) {
    u64 first, length;
    segment_of(shape, row, first, length);
    clear_words(block_words, threadIdx.x, CUREDUCE_BLOCK);
    __syncthreads();
    warp_state w;
    w.start();
    read_input(w, input + first, length, threadIdx.x, CUREDUCE_BLOCK);
    add_to_block_words(w, block_words);
    __syncthreads();
    store_block_words(result_at(out, row), block_words);
    __syncthreads();  // the next row clears the words that this one's rounding reads
  }
}
