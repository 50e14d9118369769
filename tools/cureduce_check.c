/* cureduce-check: generates, compiles, runs and verifies one reduction per operation and input
 * type on the GPU, and prints a table. Without a GPU it says so and still generates and
 * compiles every kernel for the architecture given. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Beyond the public API: build.h compiles kernels without a GPU (the table's offline half);
 * context.h gives the driver table the library loaded at run time (so the tool links neither
 * libcuda nor cudart for its copies) and the device facts the table's header prints; dtype.h and
 * reference.h size results and check them. */
#include "build.h"
#include "context.h"
#include "dtype.h"
#include "emit_source.h"
#include "reference.h"
#include "templates.h"
#include "tool_options.h"

static void usage(FILE *out) {
  fputs("usage: cureduce-check [options]\n"
        "\n"
        "Generates, compiles, runs and verifies one reduction per operation and input type on the\n"
        "GPU, against a host reference in higher precision on fresh random data, and prints a table.\n"
        "Without a GPU it says so and still generates and compiles every kernel.\n"
        "\n"
        "  -n, --count N          elements per reduction, digits or 2^K (default 1000003)\n"
        "  -d, --device N         CUDA device ordinal (default 0)\n"
        "  -a, --arch sm_XY       architecture to compile for when there is no GPU (default sm_90; 90 too)\n"
        "  -e, --emit-source SPEC print the CUDA source of one kernel spec and exit, e.g.\n"
        "                         sum:f32->f32/single_pass/b256/u4/v16/g8\n"
        "  -h, --help             this text\n"
        "\n"
        "Exit status: 0 when every reduction matched (or compiled, without a GPU), 1 otherwise,\n"
        "2 for bad options.\n",
        out);
}

typedef struct options {
  size_t count;
  int device;
  int arch;
  const char *emit_source;
} options;

/* One option and its argument (optarg) into o; false, with *why, for a bad value. */
static bool parse_option(int c, void *into, const char **why) {
  options *o = into;
  bool ok = true;
  switch (c) {
  case 'n':
    ok = cureduce_tool_parse_size(optarg, &o->count);
    *why = "--count takes a number of elements, 1 or more (digits, or 2^K up to 2^47)";
    break;
  case 'd':
    ok = cureduce_tool_parse_int(optarg, 0, &o->device);
    *why = "--device takes a device ordinal, 0 or more";
    break;
  case 'a':
    ok = cureduce_tool_parse_arch(optarg, &o->arch);
    *why = "--arch takes an architecture such as sm_90 or 90, sm_50 or newer";
    break;
  case 'e': o->emit_source = optarg; break;
  case 'h': usage(stdout); exit(0);
  default: ok = false;
  }
  return ok;
}

static int parse_options(int argc, char **argv, options *o) {
  static const struct option long_options[] = {{"count", required_argument, NULL, 'n'},
                                               {"device", required_argument, NULL, 'd'},
                                               {"arch", required_argument, NULL, 'a'},
                                               {"emit-source", required_argument, NULL, 'e'},
                                               {"help", no_argument, NULL, 'h'},
                                               {NULL, 0, NULL, 0}};
  *o = (options){1000003, 0, 90, NULL};
  const cureduce_tool_command_line line = {"cureduce-check", "n:d:a:e:h", long_options, parse_option, NULL};
  return cureduce_tool_parse_command_line(&line, argc, argv, o) ? 0 : 2;
}

/* The output type the table shows: the accumulator, the widest the pair allows. */
static cureduce_dtype output_type(cureduce_op op, cureduce_dtype input) {
  cureduce_dtype accumulator;
  cureduce_accumulator_type(op, input, &accumulator);
  return accumulator;
}

/* The table's rows: every operation with every input type it takes (exact_sum takes floats). */
static bool is_row(int op, int input) {
  cureduce_dtype accumulator;
  return cureduce_accumulator_type((cureduce_op)op, (cureduce_dtype)input, &accumulator) == CUREDUCE_STATUS_OK;
}

/* The spec the library's plan uses for (op, input) at n elements: the tuned one, or the heuristic. */
static void plan_text(cureduce_context *context, cureduce_op op, cureduce_dtype input, size_t n, char *text) {
  cureduce_problem problem;
  cureduce_problem_init(&problem, op, input, output_type(op, input), n);
  cureduce_plan *plan;
  cureduce_plan_info info;
  if (cureduce_plan_create(&plan, context, &problem, NULL) == CUREDUCE_STATUS_OK &&
      cureduce_plan_describe(plan, &info) == CUREDUCE_STATUS_OK) {
    snprintf(text, CUREDUCE_SPEC_TEXT_MAX, "%s", info.spec);
    cureduce_plan_destroy(plan);
  } else {
    snprintf(text, CUREDUCE_SPEC_TEXT_MAX, "(no plan: %s)", cureduce_last_error_detail());
  }
}

/* No GPU: generate and compile every kernel the table would run. */
static int compile_only(const options *o) {
  printf("No GPU here: %s\nGenerating and compiling every kernel for sm_%d instead; nothing runs.\n\n",
         cureduce_last_error_detail(), o->arch);
  const cureduce_logger logger = {cureduce_log_level_from_env(CUREDUCE_LOG_WARN), NULL, NULL}; /* CUREDUCE_LOG */
  const cureduce_template_set *templates;
  if (cureduce_templates_get(&templates) != CUREDUCE_STATUS_OK) { /* once, not once a kernel */
    printf("no kernel templates: %s\n", cureduce_last_error_detail());
    return 1;
  }
  cureduce_diskcache memory_only;
  cureduce_diskcache_open(&memory_only, NULL, &logger);
  printf("%-15s %-11s %-56s %s\n", "op", "types", "kernel", "compiled");
  int failures = 0, rows = 0;
  for (int op = 0; op < CUREDUCE_OP_COUNT; op++)
    for (int input = 0; input < CUREDUCE_DTYPE_COUNT; input++) {
      if (!is_row(op, input))
        continue;
      rows++;
      cureduce_spec spec =
          cureduce_spec_heuristic((cureduce_op)op, (cureduce_dtype)input, output_type((cureduce_op)op, (cureduce_dtype)input), 2048);
      char text[CUREDUCE_SPEC_TEXT_MAX], types[24];
      cureduce_spec_format(&spec, text);
      snprintf(types, sizeof types, "%s->%s", cureduce_dtype_name((cureduce_dtype)input), cureduce_dtype_name(spec.output));
      cureduce_binary binary;
      cureduce_status status = cureduce_build_kernel(&spec, o->arch, &memory_only, &logger, &binary);
      if (status == CUREDUCE_STATUS_OK) {
        printf("%-15s %-11s %-56s %zu-byte %s\n", cureduce_op_name((cureduce_op)op), types, text, binary.size,
               binary.is_cubin ? "CUBIN" : "PTX");
        free(binary.data);
      } else {
        printf("%-15s %-11s %-56s FAILED\n%s\n", cureduce_op_name((cureduce_op)op), types, text, cureduce_last_error_detail());
        failures++;
      }
    }
  cureduce_diskcache_close(&memory_only);
  printf("\n%d of %d kernels compiled for sm_%d; no GPU, so none ran.\n", rows - failures, rows, o->arch);
  return failures ? 1 : 0;
}

/* One reduction: random data, poisoned output, the library's result against the reference. */
static bool check_one(cureduce_context *context, const cureduce_driver *cu, cureduce_op op, cureduce_dtype input,
                      size_t count, char *line, size_t line_size) {
  cureduce_dtype output = output_type(op, input);
  size_t bytes = count * cureduce_dtype_size(input);
  void *host = malloc(bytes);
  CUdeviceptr device = 0, result_cell = 0;
  bool ok = false;
  if (host && cu->cuMemAlloc(&device, bytes) == CUDA_SUCCESS && cu->cuMemAlloc(&result_cell, sizeof(cureduce_value)) == CUDA_SUCCESS) {
    cureduce_ref_fill(op, input, host, count);
    cu->cuMemcpyHtoD(device, host, bytes);
    cu->cuMemsetD8(result_cell, 0xA5, sizeof(cureduce_value));
    cureduce_status status = cureduce_reduce(context, op, input, (const void *)(uintptr_t)device, count, output,
                                             (void *)(uintptr_t)result_cell, NULL);
    cureduce_value got = {.index = -1};
    if (status == CUREDUCE_STATUS_OK)
      status = cureduce_driver_check(cu->cuMemcpyDtoH(&got, result_cell, cureduce_result_size(op, output)),
                                     "cuMemcpyDtoH", __FILE__, __LINE__);
    cureduce_ref_result expected = cureduce_ref_expected(op, input, output, host, count);
    char why[256] = "";
    ok = status == CUREDUCE_STATUS_OK && cureduce_ref_matches(op, output, &got, &expected, why, sizeof why);
    snprintf(line, line_size, "%-24.17g %-24.17g %s", cureduce_ref_value_as_double(output, &got),
             cureduce_ref_value_as_double(output, &expected.value),
             status != CUREDUCE_STATUS_OK ? cureduce_last_error_detail() : ok ? "ok" : why);
    if (ok && cureduce_op_is_arg(op))
      snprintf(line + strlen(line), line_size - strlen(line), " (index %lld)", (long long)got.index);
    cureduce_value mean = {.value = got.mean};
    if (ok && cureduce_op_is_spread(op))
      snprintf(line + strlen(line), line_size - strlen(line), " (mean %.17g)", cureduce_ref_value_as_double(output, &mean));
  } else {
    snprintf(line, line_size, "no memory for %zu elements", count);
  }
  if (device)
    cu->cuMemFree(device);
  if (result_cell)
    cu->cuMemFree(result_cell);
  free(host);
  return ok;
}

static double seconds_since(const struct timespec *start) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)(now.tv_sec - start->tv_sec) + (double)(now.tv_nsec - start->tv_nsec) * 1e-9;
}

/* The first reduction after context creation, which finds its kernel in the caches (or compiles
 * it): f32 sum of count elements brought to the host. */
static double first_reduction_ms(cureduce_context *context, const cureduce_driver *cu, size_t count) {
  CUdeviceptr data;
  float *host = malloc(count * 4);
  if (!host || cu->cuMemAlloc(&data, count * 4) != CUDA_SUCCESS) {
    free(host);
    return NAN;
  }
  cureduce_ref_fill(CUREDUCE_OP_SUM, CUREDUCE_F32, host, count);
  cu->cuMemcpyHtoD(data, host, count * 4);
  free(host);
  struct timespec start;
  clock_gettime(CLOCK_MONOTONIC, &start);
  cureduce_value value;
  cureduce_status status = cureduce_reduce_to_host(context, CUREDUCE_OP_SUM, CUREDUCE_F32,
                                                   (const void *)(uintptr_t)data, count, CUREDUCE_F32, &value, NULL);
  double ms = 1000 * seconds_since(&start);
  cu->cuMemFree(data);
  return status == CUREDUCE_STATUS_OK ? ms : NAN;
}

static int run_on_gpu(cureduce_context *context, const options *o, double context_ms) {
  const cureduce_driver *cu;
  cureduce_driver_get(&cu);
  cu->cuCtxPushCurrent(context->primary);
  printf("context created in %.1f ms; the first reduction after it took %.3f ms (its kernel from the %s)\n",
         context_ms, first_reduction_ms(context, cu, o->count), "caches, or NVRTC on a cold cache");
  printf("%s, sm_%d, %d SMs; %zu elements a reduction; seed %llu\n\n", context->info.name, context->info.arch,
         context->info.sm_count, o->count, (unsigned long long)cureduce_ref_seed());
  printf("%-15s %-11s %-56s %-24s %-24s %s\n", "op", "types", "kernel", "result", "reference", "check");
  int failures = 0, rows = 0;
  for (int op = 0; op < CUREDUCE_OP_COUNT; op++)
    for (int input = 0; input < CUREDUCE_DTYPE_COUNT; input++) {
      if (!is_row(op, input))
        continue;
      rows++;
      char text[CUREDUCE_SPEC_TEXT_MAX], types[24], line[512];
      plan_text(context, (cureduce_op)op, (cureduce_dtype)input, o->count, text);
      snprintf(types, sizeof types, "%s->%s", cureduce_dtype_name((cureduce_dtype)input),
               cureduce_dtype_name(output_type((cureduce_op)op, (cureduce_dtype)input)));
      failures += !check_one(context, cu, (cureduce_op)op, (cureduce_dtype)input, o->count, line, sizeof line);
      printf("%-15s %-11s %-56s %s\n", cureduce_op_name((cureduce_op)op), types, text, line);
    }
  CUcontext popped;
  cu->cuCtxPopCurrent(&popped);
  printf("\n%d of %d reductions matched the host reference.\n", rows - failures, rows);
  return failures ? 1 : 0;
}

int main(int argc, char **argv) {
  options o;
  int bad = parse_options(argc, argv, &o);
  if (bad)
    return bad;
  if (o.emit_source)
    return cureduce_tool_emit_source("cureduce-check", o.emit_source);
  cureduce_settings settings;
  cureduce_default_settings(&settings);
  settings.device = o.device;
  cureduce_context *context;
  struct timespec start;
  clock_gettime(CLOCK_MONOTONIC, &start);
  cureduce_status status = cureduce_context_create(&context, &settings);
  double context_ms = 1000 * seconds_since(&start);
  if (status == CUREDUCE_STATUS_NO_DRIVER || status == CUREDUCE_STATUS_NO_DEVICE)
    return compile_only(&o);
  if (status != CUREDUCE_STATUS_OK) {
    fprintf(stderr, "cureduce-check: %s\n", cureduce_last_error_detail());
    return 1;
  }
  int code = run_on_gpu(context, &o, context_ms);
  cureduce_context_destroy(context);
  return code;
}
