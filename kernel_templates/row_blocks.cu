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
// on an H200, where a warp a segment took 239).
//
// A block takes its column CUREDUCE_BLOCK rows at a time, a thread a row: each thread reads its
// row's bounds and says whether the block takes it, and the block then reads those rows alone,
// in order (take_rows). Before, every thread decided every row of the column, one after another,
// two 64-bit divisions each: 73,287 ragged segments took 758 us under 8 splits (H100), and the
// time grew with the splits, not with the reads (32: 1933 us, 64: 3623).

using namespace cureduce;

// The threads whose `takes` holds, in order, into taken[0 .. count - 1]; returns count. Every
// thread of the block calls it: its barriers also publish what the threads stored before it.
__device__ __forceinline__ unsigned take_rows(bool takes, unsigned short *taken) {
  __shared__ unsigned warp_counts[CUREDUCE_BLOCK / 32];
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const unsigned votes = __ballot_sync(0xffffffffu, takes);
  if (lane == 0) warp_counts[warp] = __popc(votes);
  __syncthreads();
  unsigned before = __popc(votes & ((1u << lane) - 1)), count = 0;
  for (unsigned w = 0; w < CUREDUCE_BLOCK / 32; w++) {
    before += w < warp ? warp_counts[w] : 0;
    count += warp_counts[w];
  }
  if (takes) taken[before] = (unsigned short)threadIdx.x;
  __syncthreads();
  return count;
}

extern "C" __global__ void __launch_bounds__(CUREDUCE_BLOCK)
    cureduce_kernel(const input_t *__restrict__ input, shape_t shape, void *out, void *partials, void *tickets,
                    const input_t *__restrict__ second) {
  const kernel_source source = source_of(input, second);
  __shared__ u64 row_first[CUREDUCE_BLOCK], row_length[CUREDUCE_BLOCK];
  __shared__ unsigned short taken[CUREDUCE_BLOCK];
  const u64 stride = gridDim.y;
  // whose turn this thread's row is among the splits: its place in the column, modulo gridDim.x
  const unsigned turn_step = CUREDUCE_BLOCK % gridDim.x;
  unsigned turn = threadIdx.x % gridDim.x;
  for (u64 batch = blockIdx.y; batch < shape.rows; batch += stride * CUREDUCE_BLOCK) {
    const u64 mine = batch + threadIdx.x * stride;
    bool takes = false;
    if (mine < shape.rows) {
      segment_of(shape, mine, row_first[threadIdx.x], row_length[threadIdx.x]);
      const unsigned blocks = blocks_for(row_length[threadIdx.x]);
      takes = blocks == 1 ? turn == blockIdx.x : blockIdx.x < blocks;
    }
    turn += turn_step;
    turn -= turn >= gridDim.x ? gridDim.x : 0;
    const unsigned count = take_rows(takes, taken);
    for (unsigned i = 0; i < count; i++) {
      const unsigned k = taken[i];
      const u64 row = batch + k * stride, first = row_first[k], length = row_length[k];
      const unsigned blocks = blocks_for(length), place = blocks == 1 ? 0 : blockIdx.x;
      acc_t v = strided_accumulate(source.from(first), length, (u64)place * CUREDUCE_BLOCK + threadIdx.x,
                                   (u64)blocks * CUREDUCE_BLOCK);
      v = block_reduce(v);
      finish_blocks(v, blocks, place, result_at(out, row), (acc_t *)partials + row * gridDim.x,
                    (unsigned *)tickets + row);
      __syncthreads();  // the next row's block_reduce reuses the shared slots
    }
    __syncthreads();  // the bounds and the rows taken of the next batch overwrite these
  }
}
