// exact_sum of rows or segments (exact.cuh holds how): rows blockIdx.y, blockIdx.y + gridDim.y,
// ...; a row of n elements gets blocks x = 0, 1, ... up to gridDim.x (the splits), as many as have
// a whole round of loads each, which walk it together as one grid walks a whole array. Each block
// sums its share exactly into shared digits. A row of one block rounds them; the blocks of a split
// row add theirs into the row's words in the workspace, and the last of them to finish rounds and
// clears them (gather_block_words), as a whole array's last block does. Integer additions in any
// order: a row's bits, like a whole array's, depend on nothing but its elements.

extern "C" __global__ void __launch_bounds__(CUREDUCE_BLOCK, min_resident_blocks)
    cureduce_kernel(const input_t *__restrict__ input, shape_t shape, void *out, void *partials, void *tickets,
                    const input_t *) {
  __shared__ s64 block_words[block_word_count];
  for (u64 row = blockIdx.y; row < shape.rows; row += gridDim.y) {
    u64 first, length;
    segment_of(shape, row, first, length);
    const unsigned blocks = blocks_for(length);
    if (blockIdx.x >= blocks) continue;
    clear_words(block_words, threadIdx.x, CUREDUCE_BLOCK);
    __syncthreads();
    warp_state w;
    w.start();
    read_input(w, input + first, length, (u64)blockIdx.x * CUREDUCE_BLOCK + threadIdx.x, (u64)blocks * CUREDUCE_BLOCK);
    add_to_block_words(w, block_words);
    __syncthreads();
    if (blocks == 1 || gather_block_words(block_words, (s64 *)partials + row * block_word_count, block_word_count,
                                          (unsigned *)tickets + row, blocks))
      store_block_words(result_at(out, row), block_words);
    __syncthreads();  // the next row clears the words that this one's rounding reads
  }
}
