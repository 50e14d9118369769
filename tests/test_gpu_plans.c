/* Plans on the GPU: what describe says, pinned specs, caller workspaces and their misuse,
 * precompiling, and the hazards the plan API removed, each with a test that failed on the design
 * before it:
 *   threads sharing one stream in cureduce_reduce_to_host each get their own result;
 *   graphs: captured plan executions replayed on other streams, two graphs at once, after the
 *     capture stream's slot was released; the library's own workspace refused during capture;
 *   memory of another CUDA context refused; managed and page-locked host memory accepted;
 *   a tuning size whose bytes overflow refused before any allocation;
 *   no error detail left behind by a successful context creation or tune;
 *   a tune adopted between the choice of a plan and its publication is not lost. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "execute.h"
#include "harness.h"
#include "plan.h"

/* ---- helpers ------------------------------------------------------------------------------------ */

typedef struct staged {
  CUdeviceptr input;
  float *host;
  size_t n;
} staged;

/* Fresh f32 data whose sum rounds nowhere (the exact-sum fill), on the device. */
static staged stage_f32(const harness_gpu *gpu, size_t n) {
  staged s = {harness_device_alloc(gpu, n * 4), malloc(n * 4), n};
  ck_assert(s.host);
  cureduce_ref_fill(CUREDUCE_OP_SUM, CUREDUCE_F32, s.host, n);
  harness_upload(gpu, s.input, s.host, n * 4);
  return s;
}

static void free_staged(const harness_gpu *gpu, staged *s) {
  gpu->cu->cuMemFree(s->input);
  free(s->host);
}

static float expected_sum(const staged *s) {
  cureduce_ref_result expected = cureduce_ref_expected(CUREDUCE_OP_SUM, CUREDUCE_F32, CUREDUCE_F32, s->host, s->n);
  ck_assert(expected.tolerance == 0); /* exact data: the result is bitwise */
  return expected.value.value.f32;
}

static float read_f32(const harness_gpu *gpu, CUdeviceptr where) {
  float value;
  harness_download(gpu, &value, where, 4);
  return value;
}

static cureduce_plan *sum_plan(cureduce_context *context, size_t n, const char *spec) {
  cureduce_problem problem;
  cureduce_problem_init(&problem, CUREDUCE_OP_SUM, CUREDUCE_F32, CUREDUCE_F32, n);
  cureduce_plan *plan = NULL;
  cureduce_status status = cureduce_plan_create(&plan, context, &problem, spec);
  ck_assert_msg(status == CUREDUCE_STATUS_OK, "%s", cureduce_last_error_detail());
  return plan;
}


/* A context with a cache folder of its own and cached tuning, beside the harness's (for copies). */
typedef struct tuned_context {
  char *folder;
  harness_gpu gpu;
  cureduce_context *context;
} tuned_context;

static tuned_context open_tuned_context(void) {
  tuned_context t = {harness_temporary_folder(), {0}, NULL};
  ck_assert(t.folder);
  t.gpu = harness_gpu_open();
  t.context = harness_context_in(t.folder, CUREDUCE_TUNING_CACHED);
  return t;
}

static void close_tuned_context(tuned_context *t) {
  cureduce_context_destroy(t->context);
  harness_gpu_close(&t->gpu);
  ck_assert(harness_remove_tree(t->folder));
}

#define EXPECT_STATUS(call, name)                                                                        \
  do {                                                                                                   \
    cureduce_status got_ = (call);                                                                       \
    ck_assert_msg(strcmp(cureduce_status_name(got_), "CUREDUCE_STATUS_" name) == 0, "%s gave %s: %s", #call, \
                  cureduce_status_name(got_), cureduce_last_error_detail());                            \
  } while (0)

/* ---- the plan API ------------------------------------------------------------------------------- */

START_TEST(test_describe_pin_and_workspace) {
  harness_gpu gpu = harness_gpu_open();
  cureduce_context *context = harness_context_in(NULL, CUREDUCE_TUNING_OFF);
  staged s = stage_f32(&gpu, (1u << 20) + 3);
  CUdeviceptr out = harness_device_alloc(&gpu, 16);
  CUdeviceptr workspace = harness_device_alloc(&gpu, CUREDUCE_WORKSPACE_MAX_BYTES + 64);

  cureduce_plan *plan = sum_plan(context, s.n, NULL);
  cureduce_plan_info info;
  ck_assert(cureduce_plan_describe(plan, &info) == CUREDUCE_STATUS_OK);
  ck_assert_str_eq(info.spec, "sum:f32->f32/single_pass/b256/u4/v16/g8");
  ck_assert_int_eq(info.origin, CUREDUCE_PLAN_HEURISTIC);
  ck_assert_uint_eq(info.block, 256);
  ck_assert(info.grid > 1 && info.workspace_bytes == CUREDUCE_WORKSPACE_PARTIALS + (size_t)info.grid * 4 &&
            info.workspace_alignment == 16);
  size_t bytes, alignment;
  ck_assert(cureduce_plan_workspace_size(plan, &bytes, &alignment) == CUREDUCE_STATUS_OK);
  ck_assert(bytes == info.workspace_bytes && alignment == 16);
  /* Misuse of the caller's workspace: too small, misaligned, host memory. */
  void *in = (void *)(uintptr_t)s.input, *result = (void *)(uintptr_t)out, *ws = (void *)(uintptr_t)workspace;
  EXPECT_STATUS(cureduce_plan_execute(plan, in, result, ws, bytes - 1, NULL), "INVALID_ARGUMENT");
  EXPECT_STATUS(cureduce_plan_execute(plan, in, result, (char *)ws + 4, bytes, NULL), "MISALIGNED_POINTER");
  void *host_memory = aligned_alloc(16, bytes);
  EXPECT_STATUS(cureduce_plan_execute(plan, in, result, host_memory, bytes, NULL), "NOT_DEVICE_POINTER");
  free(host_memory);
  EXPECT_STATUS(cureduce_plan_execute(plan, (char *)in + 2, result, ws, bytes, NULL), "MISALIGNED_POINTER");
  EXPECT_STATUS(cureduce_plan_execute(plan, NULL, result, ws, bytes, NULL), "NULL_POINTER");
  /* Both modes right, again and again (the ticket re-armed each time). */
  for (int round = 0; round < 5; round++) {
    ck_assert(gpu.cu->cuMemsetD8(out, 0xA5, 4) == CUDA_SUCCESS);
    ck_assert(cureduce_plan_execute(plan, in, result, round % 2 ? ws : NULL, bytes, NULL) == CUREDUCE_STATUS_OK);
    ck_assert(read_f32(&gpu, out) == expected_sum(&s));
  }
  cureduce_plan_destroy(plan);

  /* Pinned: the spec runs as given; specs that are not production or not for the problem are not. */
  plan = sum_plan(context, s.n, "sum:f32->f32/single_pass/b128/u2/v16/g4");
  ck_assert(cureduce_plan_describe(plan, &info) == CUREDUCE_STATUS_OK);
  ck_assert_str_eq(info.spec, "sum:f32->f32/single_pass/b128/u2/v16/g4");
  ck_assert_int_eq(info.origin, CUREDUCE_PLAN_PINNED);
  ck_assert_uint_eq(info.grid, 4 * (unsigned)context->info.sm_count);
  ck_assert(gpu.cu->cuMemsetD8(out, 0xA5, 4) == CUDA_SUCCESS);
  ck_assert(cureduce_plan_execute(plan, in, result, ws, info.workspace_bytes, NULL) == CUREDUCE_STATUS_OK);
  ck_assert(read_f32(&gpu, out) == expected_sum(&s));
  cureduce_plan_destroy(plan);
  cureduce_problem problem;
  cureduce_problem_init(&problem, CUREDUCE_OP_SUM, CUREDUCE_F32, CUREDUCE_F32, s.n);
  const char *refused[] = {"sum:f32->f32/rung8_several_per_thread/b256/u8/v4/g8",
                           "sum:f64->f64/single_pass/b256/u4/v16/g8", "max:f32->f32/single_pass/b256/u4/v16/g8",
                           "sum:f32->f32/single_pass/b256/u4/v16/g0", "sum:f32->f32/single_pass/b100/u4/v16/g8",
                           "nonsense"};
  for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
    plan = NULL;
    EXPECT_STATUS(cureduce_plan_create(&plan, context, &problem, refused[i]), "INVALID_SPEC");
    ck_assert_ptr_null(plan);
  }
  ck_assert(strstr(cureduce_last_error_detail(), "nonsense"));
  plan = NULL;
  cureduce_plan_create(&plan, context, &problem, refused[0]);
  ck_assert(strstr(cureduce_last_error_detail(), "teaching ladder"));

  /* One block: no workspace at all. */
  plan = sum_plan(context, 1000, NULL);
  ck_assert(cureduce_plan_workspace_size(plan, &bytes, &alignment) == CUREDUCE_STATUS_OK && bytes == 0);
  ck_assert(cureduce_plan_execute(plan, in, result, NULL, 0, NULL) == CUREDUCE_STATUS_OK);
  staged head = {s.input, s.host, 1000};
  ck_assert(read_f32(&gpu, out) == expected_sum(&head));
  cureduce_plan_destroy(plan);

  /* Precompile, then a plan that finds its kernel loaded. */
  cureduce_problem problems[3];
  cureduce_problem_init(&problems[0], CUREDUCE_OP_ARGMAX, CUREDUCE_BF16, CUREDUCE_BF16, 12345);
  cureduce_problem_init(&problems[1], CUREDUCE_OP_PROD, CUREDUCE_F16, CUREDUCE_F32, 99);
  cureduce_problem_init(&problems[2], CUREDUCE_OP_MIN, CUREDUCE_U8, CUREDUCE_U8, 1 << 26);
  ck_assert(cureduce_precompile(context, problems, 3) == CUREDUCE_STATUS_OK);
  ck_assert(cureduce_precompile(context, NULL, 0) == CUREDUCE_STATUS_OK);

  gpu.cu->cuMemFree(workspace);
  gpu.cu->cuMemFree(out);
  free_staged(&gpu, &s);
  cureduce_context_destroy(context);
  harness_gpu_close(&gpu);
}
END_TEST

/* After a tune, new plans say TUNED and run the tuned spec; a plan made before keeps its own. */
START_TEST(test_tuned_origin) {
  tuned_context t = open_tuned_context();
  harness_gpu gpu = t.gpu;
  cureduce_context *context = t.context;
  staged s = stage_f32(&gpu, 300001);
  cureduce_plan *before = sum_plan(context, s.n, NULL);
  ck_assert(cureduce_tune(context, CUREDUCE_OP_SUM, CUREDUCE_F32, CUREDUCE_F32, s.n, s.n, 1) == CUREDUCE_STATUS_OK);
  ck_assert_str_eq(cureduce_last_error_detail(), "");
  cureduce_plan *after = sum_plan(context, s.n, NULL);
  cureduce_plan_info info;
  ck_assert(cureduce_plan_describe(after, &info) == CUREDUCE_STATUS_OK);
  ck_assert_int_eq(info.origin, CUREDUCE_PLAN_TUNED);
  ck_assert(cureduce_plan_describe(before, &info) == CUREDUCE_STATUS_OK);
  ck_assert_int_eq(info.origin, CUREDUCE_PLAN_HEURISTIC);
  CUdeviceptr out = harness_device_alloc(&gpu, 4);
  cureduce_plan *plans[] = {before, after};
  for (int p = 0; p < 2; p++) {
    ck_assert(gpu.cu->cuMemsetD8(out, 0xA5, 4) == CUDA_SUCCESS);
    ck_assert(cureduce_plan_execute(plans[p], (void *)(uintptr_t)s.input, (void *)(uintptr_t)out, NULL, 0, NULL) ==
              CUREDUCE_STATUS_OK);
    ck_assert(read_f32(&gpu, out) == expected_sum(&s));
    cureduce_plan_destroy(plans[p]);
  }
  gpu.cu->cuMemFree(out);
  free_staged(&gpu, &s);
  close_tuned_context(&t);
}
END_TEST

/* ---- hazard 1: threads sharing one stream ------------------------------------------------------- */

typedef struct sharing_thread {
  harness_gpu *gpu;
  CUstream stream;
  staged data;
  float expected;
  int wrong;
} sharing_thread;

static void *reduce_on_shared_stream(void *argument) {
  sharing_thread *t = argument;
  for (int run = 0; run < 200; run++) {
    cureduce_value result;
    memset(&result, 0xA5, sizeof result);
    cureduce_status status = cureduce_reduce_to_host(t->gpu->context, CUREDUCE_OP_SUM, CUREDUCE_F32,
                                                     (const void *)(uintptr_t)t->data.input, t->data.n, CUREDUCE_F32,
                                                     &result, t->stream);
    t->wrong += status != CUREDUCE_STATUS_OK || result.value.f32 != t->expected;
  }
  return NULL;
}

/* Loop index 0: one non-blocking stream for all; 1: the legacy stream. */
START_TEST(test_threads_share_one_stream) {
  enum { threads = 8 };
  harness_gpu gpu = harness_gpu_open();
  CUstream shared = NULL;
  if (_i == 0)
    ck_assert(gpu.cu->cuStreamCreate(&shared, CU_STREAM_NON_BLOCKING) == CUDA_SUCCESS);
  sharing_thread work[threads];
  pthread_t ids[threads];
  for (int t = 0; t < threads; t++) {
    work[t] = (sharing_thread){&gpu, shared, stage_f32(&gpu, 50000 + (size_t)t * 40009), 0, 0};
    work[t].expected = expected_sum(&work[t].data);
  }
  for (int t = 0; t < threads; t++)
    ck_assert(pthread_create(&ids[t], NULL, reduce_on_shared_stream, &work[t]) == 0);
  for (int t = 0; t < threads; t++) {
    pthread_join(ids[t], NULL);
    ck_assert_msg(work[t].wrong == 0, "thread %d: %d of 200 results were not its own", t, work[t].wrong);
    free_staged(&gpu, &work[t].data);
  }
  cureduce_release_stream(gpu.context, shared);
  if (shared)
    gpu.cu->cuStreamDestroy(shared);
  harness_gpu_close(&gpu);
}
END_TEST

/* ---- hazard 2: graphs ---------------------------------------------------------------------------- */

/* Captures one execution of `plan` in `workspace` into a graph, on `stream`, in the strictest mode. */
static CUgraphExec capture_plan(const harness_gpu *gpu, const cureduce_plan *plan, const staged *s, CUdeviceptr out,
                                CUdeviceptr workspace, size_t bytes, CUstream stream) {
  CUgraph graph;
  CUgraphExec instance;
  ck_assert(gpu->cu->cuStreamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_GLOBAL) == CUDA_SUCCESS);
  cureduce_status captured = cureduce_plan_execute(plan, (void *)(uintptr_t)s->input, (void *)(uintptr_t)out,
                                                   (void *)(uintptr_t)workspace, bytes, stream);
  ck_assert(gpu->cu->cuStreamEndCapture(stream, &graph) == CUDA_SUCCESS);
  ck_assert_msg(captured == CUREDUCE_STATUS_OK, "%s", cureduce_last_error_detail());
  ck_assert(gpu->cu->cuGraphInstantiateWithFlags(&instance, graph, 0) == CUDA_SUCCESS);
  gpu->cu->cuGraphDestroy(graph);
  return instance;
}

static void expect_output(const harness_gpu *gpu, CUdeviceptr out, float want, const char *what) {
  float got = read_f32(gpu, out);
  ck_assert_msg(got == want, "%s: got %a, want %a", what, (double)got, (double)want);
}

START_TEST(test_graphs) {
  harness_gpu gpu = harness_gpu_open();
  staged s = stage_f32(&gpu, (1u << 22) + 5);
  float want = expected_sum(&s);
  CUstream streams[2];
  for (int i = 0; i < 2; i++)
    ck_assert(gpu.cu->cuStreamCreate(&streams[i], CU_STREAM_NON_BLOCKING) == CUDA_SUCCESS);
  cureduce_plan *plan = sum_plan(gpu.context, s.n, NULL);
  size_t bytes, alignment;
  ck_assert(cureduce_plan_workspace_size(plan, &bytes, &alignment) == CUREDUCE_STATUS_OK && bytes > 0);
  CUdeviceptr workspaces[2], graph_outs[2], plain_outs[2];
  for (int i = 0; i < 2; i++) {
    workspaces[i] = harness_device_alloc(&gpu, bytes);
    graph_outs[i] = harness_device_alloc(&gpu, 4);
    plain_outs[i] = harness_device_alloc(&gpu, 4);
  }
  void *in = (void *)(uintptr_t)s.input, *out0 = (void *)(uintptr_t)graph_outs[0];

  /* The library's own workspace is refused in a capture, and the capture survives the refusal. */
  CUgraph refused_graph;
  ck_assert(gpu.cu->cuStreamBeginCapture(streams[0], CU_STREAM_CAPTURE_MODE_GLOBAL) == CUDA_SUCCESS);
  cureduce_status library = cureduce_plan_execute(plan, in, out0, NULL, 0, streams[0]);
  cureduce_status shortcut =
      cureduce_reduce(gpu.context, CUREDUCE_OP_SUM, CUREDUCE_F32, in, s.n, CUREDUCE_F32, out0, streams[0]);
  cureduce_value host_result;
  cureduce_status to_host = cureduce_reduce_to_host(gpu.context, CUREDUCE_OP_SUM, CUREDUCE_F32, in, 100, CUREDUCE_F32,
                                                    &host_result, streams[0]);
  ck_assert(gpu.cu->cuStreamEndCapture(streams[0], &refused_graph) == CUDA_SUCCESS);
  gpu.cu->cuGraphDestroy(refused_graph);
  ck_assert_str_eq(cureduce_status_name(library), "CUREDUCE_STATUS_INVALID_ARGUMENT");
  ck_assert_str_eq(cureduce_status_name(shortcut), "CUREDUCE_STATUS_INVALID_ARGUMENT");
  ck_assert_msg(strstr(cureduce_last_error_detail(), "captured"), "%s", cureduce_last_error_detail());
  ck_assert_str_eq(cureduce_status_name(to_host), "CUREDUCE_STATUS_INVALID_ARGUMENT");

  /* Two graphs, each with its own workspace and output, both captured on the first stream. */
  CUgraphExec graphs[2];
  for (int g = 0; g < 2; g++)
    graphs[g] = capture_plan(&gpu, plan, &s, graph_outs[g], workspaces[g], bytes, streams[0]);
  /* Replayed on the second stream. */
  ck_assert(gpu.cu->cuMemsetD8(graph_outs[0], 0xA5, 4) == CUDA_SUCCESS);
  ck_assert(gpu.cu->cuGraphLaunch(graphs[0], streams[1]) == CUDA_SUCCESS);
  ck_assert(gpu.cu->cuStreamSynchronize(streams[1]) == CUDA_SUCCESS);
  expect_output(&gpu, graph_outs[0], want, "replay on a second stream");
  /* Both graphs at once on the two streams, each followed by a plain call on the same stream;
   * then the capture stream's slot released, and the same again. */
  for (int round = 0; round < 20; round++) {
    if (round == 10)
      ck_assert(cureduce_release_stream(gpu.context, streams[0]) == CUREDUCE_STATUS_OK);
    for (int i = 0; i < 2; i++) {
      ck_assert(gpu.cu->cuMemsetD8(graph_outs[i], 0xA5, 4) == CUDA_SUCCESS);
      ck_assert(gpu.cu->cuMemsetD8(plain_outs[i], 0xA5, 4) == CUDA_SUCCESS);
    }
    for (int i = 0; i < 2; i++) {
      ck_assert(gpu.cu->cuGraphLaunch(graphs[i], streams[i]) == CUDA_SUCCESS);
      ck_assert(cureduce_reduce(gpu.context, CUREDUCE_OP_SUM, CUREDUCE_F32, in, s.n, CUREDUCE_F32,
                                (void *)(uintptr_t)plain_outs[i], streams[i]) == CUREDUCE_STATUS_OK);
    }
    for (int i = 0; i < 2; i++) {
      ck_assert(gpu.cu->cuStreamSynchronize(streams[i]) == CUDA_SUCCESS);
      expect_output(&gpu, graph_outs[i], want, round < 10 ? "two graphs at once" : "replay after release");
      expect_output(&gpu, plain_outs[i], want, "a plain call after a replay");
    }
  }
  for (int i = 0; i < 2; i++) {
    gpu.cu->cuGraphExecDestroy(graphs[i]);
    cureduce_release_stream(gpu.context, streams[i]);
    gpu.cu->cuStreamDestroy(streams[i]);
    gpu.cu->cuMemFree(workspaces[i]);
    gpu.cu->cuMemFree(graph_outs[i]);
    gpu.cu->cuMemFree(plain_outs[i]);
  }
  cureduce_plan_destroy(plan);
  free_staged(&gpu, &s);
  harness_gpu_close(&gpu);
}
END_TEST

/* ---- hazard 3: memory the context's kernels cannot reach ----------------------------------------- */

/* libcuda's own exports for what the library never does: another context, managed and
 * page-locked host memory. */
typedef struct foreign_calls {
  void *library;
  CUresult (*create_context)(CUcontext *, unsigned, CUdevice);
  CUresult (*destroy_context)(CUcontext);
  CUresult (*alloc_managed)(CUdeviceptr *, size_t, unsigned);
  CUresult (*alloc_host)(void **, size_t);
  CUresult (*free_host)(void *);
} foreign_calls;

static void *symbol(void *library, const char *name) {
  void *found = dlsym(library, name);
  ck_assert_msg(found, "libcuda has no %s", name);
  return found;
}

static foreign_calls open_foreign_calls(void) {
  foreign_calls f = {dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL), NULL, NULL, NULL, NULL, NULL};
  ck_assert(f.library);
  void *p;
  p = symbol(f.library, "cuCtxCreate_v2"), memcpy(&f.create_context, &p, sizeof p);
  p = symbol(f.library, "cuCtxDestroy_v2"), memcpy(&f.destroy_context, &p, sizeof p);
  p = symbol(f.library, "cuMemAllocManaged"), memcpy(&f.alloc_managed, &p, sizeof p);
  p = symbol(f.library, "cuMemAllocHost_v2"), memcpy(&f.alloc_host, &p, sizeof p);
  p = symbol(f.library, "cuMemFreeHost"), memcpy(&f.free_host, &p, sizeof p);
  return f;
}

/* The sum of n exact-data floats at `input`, through the shortcut; the status, and *sum. */
static cureduce_status sum_of(const harness_gpu *gpu, cureduce_context *context, CUdeviceptr input, size_t n,
                              CUdeviceptr out, float *sum) {
  cureduce_status status = cureduce_reduce(context, CUREDUCE_OP_SUM, CUREDUCE_F32, (const void *)(uintptr_t)input,
                                           n, CUREDUCE_F32, (void *)(uintptr_t)out, NULL);
  if (status == CUREDUCE_STATUS_OK)
    *sum = read_f32(gpu, out);
  return status;
}

START_TEST(test_memory_of_other_contexts) {
  harness_gpu gpu = harness_gpu_open();
  foreign_calls f = open_foreign_calls();
  const size_t n = 100003;
  staged s = stage_f32(&gpu, n);
  float want = expected_sum(&s), got = 0;
  CUdeviceptr out = harness_device_alloc(&gpu, 16);

  /* Device memory of a second context on the same device: refused, as input and as output. */
  CUcontext other, popped;
  CUdeviceptr foreign;
  ck_assert(f.create_context(&other, 0, gpu.context->device) == CUDA_SUCCESS); /* pushed: current now */
  ck_assert(gpu.cu->cuMemAlloc(&foreign, n * 4) == CUDA_SUCCESS);
  ck_assert(gpu.cu->cuCtxPopCurrent(&popped) == CUDA_SUCCESS && popped == other);
  EXPECT_STATUS(sum_of(&gpu, gpu.context, foreign, n, out, &got), "NOT_DEVICE_POINTER");
  ck_assert_msg(strstr(cureduce_last_error_detail(), "another CUDA context"), "%s", cureduce_last_error_detail());
  EXPECT_STATUS(cureduce_reduce(gpu.context, CUREDUCE_OP_SUM, CUREDUCE_F32, (const void *)(uintptr_t)s.input, n,
                                CUREDUCE_F32, (void *)(uintptr_t)foreign, NULL),
                "NOT_DEVICE_POINTER");
  /* The context still works. */
  ck_assert(sum_of(&gpu, gpu.context, s.input, n, out, &got) == CUREDUCE_STATUS_OK && got == want);
  ck_assert(f.destroy_context(other) == CUDA_SUCCESS);

  /* Managed memory and page-locked host memory: accepted, and summed right. */
  CUdeviceptr managed;
  ck_assert(f.alloc_managed(&managed, n * 4, CU_MEM_ATTACH_GLOBAL) == CUDA_SUCCESS);
  memcpy((void *)(uintptr_t)managed, s.host, n * 4);
  got = 0;
  ck_assert_msg(sum_of(&gpu, gpu.context, managed, n, out, &got) == CUREDUCE_STATUS_OK, "%s", cureduce_last_error_detail());
  ck_assert(got == want);
  void *pinned;
  ck_assert(f.alloc_host(&pinned, n * 4) == CUDA_SUCCESS);
  memcpy(pinned, s.host, n * 4);
  got = 0;
  ck_assert_msg(sum_of(&gpu, gpu.context, (CUdeviceptr)(uintptr_t)pinned, n, out, &got) == CUREDUCE_STATUS_OK, "%s",
                cureduce_last_error_detail());
  ck_assert(got == want);
  ck_assert(f.free_host(pinned) == CUDA_SUCCESS);
  gpu.cu->cuMemFree(managed);
  gpu.cu->cuMemFree(out);
  free_staged(&gpu, &s);
  dlclose(f.library);
  harness_gpu_close(&gpu);
}
END_TEST

/* Device memory of another device, found by the pointer's device ordinal: refused. Needs two
 * GPUs; with one it says so and checks nothing more. */
START_TEST(test_memory_of_another_device) {
  harness_gpu gpu = harness_gpu_open();
  int count = 0;
  ck_assert(gpu.cu->cuDeviceGetCount(&count) == CUDA_SUCCESS);
  if (count < 2) {
    printf("test_memory_of_another_device: %d GPU here; this check needs two\n", count);
    harness_gpu_close(&gpu);
    return;
  }
  CUdevice second;
  CUcontext second_context, popped;
  CUdeviceptr foreign;
  ck_assert(gpu.cu->cuDeviceGet(&second, 1) == CUDA_SUCCESS);
  ck_assert(gpu.cu->cuDevicePrimaryCtxRetain(&second_context, second) == CUDA_SUCCESS);
  ck_assert(gpu.cu->cuCtxPushCurrent(second_context) == CUDA_SUCCESS);
  ck_assert(gpu.cu->cuMemAlloc(&foreign, 4096) == CUDA_SUCCESS);
  ck_assert(gpu.cu->cuCtxPopCurrent(&popped) == CUDA_SUCCESS);
  CUdeviceptr out = harness_device_alloc(&gpu, 16);
  float got = 0;
  EXPECT_STATUS(sum_of(&gpu, gpu.context, foreign, 1024, out, &got), "NOT_DEVICE_POINTER");
  ck_assert_msg(strstr(cureduce_last_error_detail(), "memory of device 1"), "%s", cureduce_last_error_detail());
  ck_assert(gpu.cu->cuCtxPushCurrent(second_context) == CUDA_SUCCESS);
  gpu.cu->cuMemFree(foreign);
  ck_assert(gpu.cu->cuCtxPopCurrent(&popped) == CUDA_SUCCESS);
  gpu.cu->cuDevicePrimaryCtxRelease(second);
  gpu.cu->cuMemFree(out);
  harness_gpu_close(&gpu);
}
END_TEST

/* ---- hazards 5 and 6: tuning sizes; no detail left by success ------------------------------------- */

START_TEST(test_tuning_size_overflow_refused) {
  harness_gpu gpu = harness_gpu_open();
  EXPECT_STATUS(cureduce_tune(gpu.context, CUREDUCE_OP_SUM, CUREDUCE_F64, CUREDUCE_F64, 1, SIZE_MAX / 4, 1),
                "INVALID_ARGUMENT");
  ck_assert_msg(strstr(cureduce_last_error_detail(), "do not fit"), "%s", cureduce_last_error_detail());
  harness_gpu_close(&gpu);
}
END_TEST

/* A cache location that is a file: creating the context and tuning warn (kernels and tuning stay
 * in memory) but succeed, and a success leaves no error detail. */
START_TEST(test_success_leaves_no_detail) {
  char *folder = harness_temporary_folder();
  ck_assert(folder);
  char file[4096];
  snprintf(file, sizeof file, "%s/a-file", folder);
  FILE *made = fopen(file, "w");
  ck_assert(made && fclose(made) == 0);
  cureduce_settings settings;
  cureduce_default_settings(&settings);
  settings.cache_dir = file;
  settings.log_level = CUREDUCE_LOG_OFF;
  cureduce_context *context;
  ck_assert(cureduce_context_create(&context, &settings) == CUREDUCE_STATUS_OK);
  ck_assert_str_eq(cureduce_last_error_detail(), "");
  ck_assert(cureduce_tune(context, CUREDUCE_OP_MAX, CUREDUCE_I32, CUREDUCE_I32, 1000, 3000, 1) == CUREDUCE_STATUS_OK);
  ck_assert_str_eq(cureduce_last_error_detail(), "");
  ck_assert(cureduce_plan_is_tuned(context, CUREDUCE_OP_MAX, CUREDUCE_I32, CUREDUCE_I32, 2000));
  cureduce_context_destroy(context);
  ck_assert(harness_remove_tree(folder));
}
END_TEST

/* ---- hazard 7: a tune between a plan's choice and its publication ------------------------------ */

START_TEST(test_tune_between_choice_and_publication) {
  tuned_context t = open_tuned_context();
  harness_gpu gpu = t.gpu;
  cureduce_context *context = t.context;
  const size_t n = 5000;
  cureduce_plancache_key key = {.op = CUREDUCE_OP_SUM, .input = CUREDUCE_F32, .output = CUREDUCE_F32,
                                .bucket = cureduce_size_bucket(n)};
  cureduce_choice *made;
  unsigned generation;
  ck_assert(cureduce_plan_make_choice(context, &key, &made, &generation) == CUREDUCE_STATUS_OK);
  ck_assert_int_eq(made->origin, CUREDUCE_PLAN_HEURISTIC);
  /* The tune lands now, before the choice made without it is published. */
  cureduce_spec tuned = cureduce_spec_heuristic(CUREDUCE_OP_SUM, CUREDUCE_F32, CUREDUCE_F32, 2048);
  tuned.block = 128, tuned.unroll = 2, tuned.blocks_per_sm = 4;
  cureduce_tune_record record = {.op = CUREDUCE_OP_SUM, .input = CUREDUCE_F32, .output = CUREDUCE_F32,
                                 .bucket = (uint8_t)key.bucket, .nvrtc_version = 13000, .spec = tuned,
                                 .time_us = 4, .default_us = 5};
  cureduce_tunedb records = {&record, 1, 1};
  ck_assert(cureduce_context_adopt_tuning(context, &records) == CUREDUCE_STATUS_OK);
  const cureduce_choice *published = cureduce_plancache_publish(&context->plans, &key, made, generation);
  ck_assert(published == made); /* this call may run what it made... */
  const cureduce_choice *next;
  ck_assert(cureduce_plan_choice(context, &key, &next) == CUREDUCE_STATUS_OK);
  ck_assert_msg(cureduce_spec_equal(&next->spec, &tuned) && next->origin == CUREDUCE_PLAN_TUNED,
                "the tune was lost: the next call runs the choice made before it"); /* ...the next runs the tune */
  staged s = stage_f32(&gpu, n);
  CUdeviceptr out = harness_device_alloc(&gpu, 4);
  float got = 0;
  ck_assert(sum_of(&gpu, context, s.input, n, out, &got) == CUREDUCE_STATUS_OK);
  ck_assert(got == expected_sum(&s));
  gpu.cu->cuMemFree(out);
  free_staged(&gpu, &s);
  close_tuned_context(&t);
}
END_TEST

int main(void) {
  Suite *suite = suite_create("gpu-plans");
  TCase *plans = tcase_create("plans");
  tcase_set_timeout(plans, 600);
  tcase_add_test(plans, test_describe_pin_and_workspace);
  tcase_add_test(plans, test_tuned_origin);
  tcase_add_loop_test(plans, test_threads_share_one_stream, 0, 2);
  tcase_add_test(plans, test_graphs);
  tcase_add_test(plans, test_memory_of_other_contexts);
  tcase_add_test(plans, test_memory_of_another_device);
  tcase_add_test(plans, test_tuning_size_overflow_refused);
  tcase_add_test(plans, test_success_leaves_no_detail);
  tcase_add_test(plans, test_tune_between_choice_and_publication);
  suite_add_tcase(suite, plans);
  return harness_run(suite, true);
}
