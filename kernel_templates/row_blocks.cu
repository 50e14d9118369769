// Rows or segments, a block or several each, for rows long enough to keep a block busy. Blocks
// (x, y) take rows y, y + gridDim.y, ...; a row of n elements gets blocks x = 0, 1, ... up to
// gridDim.x, as many as have a whole round of loads each (so short segments take one), which
// walk it together as one grid walks a contiguous input; the last of them to finish folds their
// partials in order (finish_blocks). The partials and tickets of row r are its own: a block may
// be rows ahead of the one folding another row.
//
// The splits are blockIdx.x, which the hardware schedules first: a row's blocks run together.
// A row that one block reads whole is the turn of one of them, each taking every gridDim.x-th of
// its column of such rows. Taken by split 0 alone, such rows left the other splits nothing to do:
// of 8 splits a segment, an eighth of the blocks worked on 65,536 segments of 4096 f32 (348 us
// on an H200, where a warp a segment took 239). A block reads the bounds of its next
// CUREDUCE_BLOCK rows at once, so that skipping a segment costs no round trip to memory.

using namespace cureduce;

__device__ __forceinline__ unsigned blocks_for(u64 length) {
  const u64 per_block = (u64)CUREDUCE_BLOCK * CUREDUCE_UNROLL * vector_elements;
  const u64 wanted = (length + per_block - 1) / per_block;
  return wanted < 1 ? 1u : wanted < gridDim.x ? (unsigned)wanted : gridDim.x;
}

extern "C" __global__ void __launch_bounds__(CUREDUCE_BLOCK)
    cureduce_kernel(const input_t *__restrict__ input, shape_t shape, void *out, void *partials, void *tickets,
                    const input_t *__restrict__ second) {
  const kernel_source source = source_of(input, second);
  __shared__ u64 row_first[CUREDUCE_BLOCK], row_length[CUREDUCE_BLOCK];
  const u64 stride = gridDim.y;
  for (u64 batch = blockIdx.y; batch < shape.rows; batch += stride * CUREDUCE_BLOCK) {
    const u64 mine = batch + threadIdx.x * stride;
    if (mine < shape.rows) segment_of(shape, mine, row_first[threadIdx.x], row_length[threadIdx.x]);
    __syncthreads();
    for (unsigned k = 0; k < CUREDUCE_BLOCK && batch + k * stride < shape.rows; k++) {
      const u64 row = batch + k * stride, first = row_first[k], length = row_length[k];
      const unsigned blocks = blocks_for(length);
      if (blocks == 1 ? blockIdx.x != (row / stride) % gridDim.x : blockIdx.x >= blocks) continue;
      const unsigned place = blocks == 1 ? 0 : blockIdx.x;
      acc_t v = strided_accumulate(source.from(first), length, (u64)place * CUREDUCE_BLOCK + threadIdx.x,
                                   (u64)blocks * CUREDUCE_BLOCK);
      v = block_reduce(v);
      finish_blocks(v, blocks, place, result_at(out, row), (acc_t *)partials + row * gridDim.x,
                    (unsigned *)tickets + row);
      __syncthreads();  // the next row's block_reduce reuses the shared slots
    }
    __syncthreads();  // the bounds of the next batch overwrite these
  }
}
