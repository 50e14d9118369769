// exact_sum of a whole array (exact.cuh holds how): each block sums into shared digits, then adds
// them to the workspace's; the last block to finish rounds and clears the workspace's digits for
// the next launch, as it re-arms the ticket.
extern "C" __global__ void __launch_bounds__(CUREDUCE_BLOCK, min_resident_blocks)
    cureduce_kernel(const input_t *__restrict__ input, u64 n, void *out, void *partials, void *work) {
  __shared__ s64 block_words[block_word_count];
  __shared__ bool is_last_block;
  clear_words(block_words, threadIdx.x, CUREDUCE_BLOCK);
  __syncthreads();

  warp_state w;
  w.start();
  read_input(w, input, n, (u64)blockIdx.x * CUREDUCE_BLOCK + threadIdx.x, (u64)gridDim.x * CUREDUCE_BLOCK);
  add_to_block_words(w, block_words);
  __syncthreads();

  s64 *grid_words = (s64 *)partials;
  if (gridDim.x > 1) {
    for (int i = threadIdx.x; i < block_word_count; i += CUREDUCE_BLOCK)
      if (block_words[i]) atomicAdd((unsigned long long *)&grid_words[i], (unsigned long long)block_words[i]);
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) is_last_block = atomicAdd((unsigned *)work, 1u) == gridDim.x - 1;
    __syncthreads();
    if (!is_last_block) return;
    __threadfence();
    for (int i = threadIdx.x; i < block_word_count; i += CUREDUCE_BLOCK) {
      block_words[i] = *(volatile s64 *)&grid_words[i];
      grid_words[i] = 0;
    }
    __syncthreads();
  }
  store_block_words(out, block_words);
  if (threadIdx.x == 0 && gridDim.x > 1) *(unsigned *)work = 0;
}
