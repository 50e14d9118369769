// exact_sum of a whole array (exact.cuh holds how): each block sums into shared digits, then adds
// them to the workspace's; the last block to finish rounds and clears the workspace's digits for
// the next launch, as it re-arms the ticket.
extern "C" __global__ void __launch_bounds__(CUREDUCE_BLOCK, min_resident_blocks)
    cureduce_kernel(const input_t *__restrict__ input, u64 n, void *out, void *partials, void *work) {
  __shared__ s64 block_words[block_word_count];
  clear_words(block_words, threadIdx.x, CUREDUCE_BLOCK);
  __syncthreads();

  warp_state w;
  w.start();
  read_input(w, input, n, (u64)blockIdx.x * CUREDUCE_BLOCK + threadIdx.x, (u64)gridDim.x * CUREDUCE_BLOCK);
  add_to_block_words(w, block_words);
  __syncthreads();

  if (gridDim.x > 1 && !gather_block_words(block_words, (s64 *)partials, block_word_count, (unsigned *)work, gridDim.x))
    return;
  store_block_words(out, block_words);
}
