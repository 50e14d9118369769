#include <dlfcn.h>
#include <nvrtc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "compiler.h"
#include "strbuf.h"

#define CUREDUCE_NVRTC_ENTRIES(X)                                                                   \
  X(nvrtcVersion) X(nvrtcGetErrorString) X(nvrtcGetNumSupportedArchs) X(nvrtcGetSupportedArchs)    \
  X(nvrtcCreateProgram) X(nvrtcDestroyProgram) X(nvrtcCompileProgram) X(nvrtcGetProgramLogSize)    \
  X(nvrtcGetProgramLog) X(nvrtcGetCUBINSize) X(nvrtcGetCUBIN) X(nvrtcGetPTXSize) X(nvrtcGetPTX)

static struct {
#define CUREDUCE_NVRTC_MEMBER(name) __typeof__(&name) name;
  CUREDUCE_NVRTC_ENTRIES(CUREDUCE_NVRTC_MEMBER)
#undef CUREDUCE_NVRTC_MEMBER
  int version;
  int arch_count;
  int archs[64];
} nvrtc;

static cureduce_status load_status;
static char load_failure[1024];
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

/* Tried in order: the caller's choice, the sonames of CUDA 13 and 12, the unversioned name, and
 * the toolkit the library was built against (often outside the loader's path). */
static void *open_nvrtc(void) {
  const char *names[] = {getenv("CUREDUCE_NVRTC_LIB"), "libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so",
                         CUREDUCE_CUDA_LIBDIR "/libnvrtc.so"};
  size_t first = names[0] ? 0 : 1, last = names[0] ? 1 : sizeof names / sizeof names[0];
  for (size_t i = first; i < last; i++) {
    void *handle = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (handle)
      return handle;
  }
  if (names[0])
    snprintf(load_failure, sizeof load_failure, "dlopen(%s) from CUREDUCE_NVRTC_LIB failed: %s", names[0],
             dlerror());
  else
    snprintf(load_failure, sizeof load_failure,
             "no NVRTC found (libnvrtc.so.13, .so.12, .so, or in %s); set CUREDUCE_NVRTC_LIB", CUREDUCE_CUDA_LIBDIR);
  return NULL;
}

static void load_nvrtc(void) {
  void *handle = open_nvrtc();
  if (!handle) {
    load_status = CUREDUCE_STATUS_NO_NVRTC;
    return;
  }
#define CUREDUCE_NVRTC_RESOLVE(name)                                                                \
  void *name##_symbol = dlsym(handle, #name); /* POSIX's way to take a function */                   \
  memcpy(&nvrtc.name, &name##_symbol, sizeof name##_symbol);                                         \
  if (!nvrtc.name) {                                                                                 \
    load_status = CUREDUCE_STATUS_NO_NVRTC;                                                         \
    snprintf(load_failure, sizeof load_failure, "the NVRTC library has no %s", #name);              \
    return;                                                                                         \
  }
  CUREDUCE_NVRTC_ENTRIES(CUREDUCE_NVRTC_RESOLVE)
#undef CUREDUCE_NVRTC_RESOLVE
  int major = 0, minor = 0;
  nvrtc.nvrtcVersion(&major, &minor);
  nvrtc.version = major * 1000 + minor * 10;
  if (nvrtc.nvrtcGetNumSupportedArchs(&nvrtc.arch_count) != NVRTC_SUCCESS || nvrtc.arch_count < 1 ||
      nvrtc.arch_count > (int)(sizeof nvrtc.archs / sizeof nvrtc.archs[0]) ||
      nvrtc.nvrtcGetSupportedArchs(nvrtc.archs) != NVRTC_SUCCESS) {
    load_status = CUREDUCE_STATUS_NO_NVRTC;
    snprintf(load_failure, sizeof load_failure, "NVRTC %d.%d did not list its architectures", major, minor);
  }
}

static cureduce_status get_nvrtc(void) {
  pthread_once(&load_once, load_nvrtc);
  CUREDUCE_RETURN_ERROR_IF(load_status != CUREDUCE_STATUS_OK, NO_NVRTC, "%s", load_failure);
  return CUREDUCE_STATUS_OK;
}

cureduce_status cureduce_nvrtc_version(int *version) {
  CUREDUCE_FORWARD_IF_ERROR(get_nvrtc());
  *version = nvrtc.version;
  return CUREDUCE_STATUS_OK;
}

#define CUREDUCE_NVRTC_OPTIONS "--std=c++17"

const char *cureduce_nvrtc_options_text(void) { return CUREDUCE_NVRTC_OPTIONS; }

/* The newest architecture NVRTC knows that is not newer than `arch`, and whether it is `arch`. */
static int pick_arch(int arch, bool *exact) {
  int best = 0;
  for (int i = 0; i < nvrtc.arch_count; i++)
    if (nvrtc.archs[i] <= arch && nvrtc.archs[i] > best)
      best = nvrtc.archs[i];
  *exact = best == arch;
  return best;
}

static void append_numbered_source(const char *source) {
  cureduce_strbuf numbered = {0};
  int line = 1;
  cureduce_strbuf_printf(&numbered, "\n--- source ---\n%5d  ", line);
  for (const char *c = source; *c; c++) {
    char one[2] = {*c, '\0'};
    cureduce_strbuf_append(&numbered, one);
    if (*c == '\n' && c[1])
      cureduce_strbuf_printf(&numbered, "%5d  ", ++line);
  }
  char *text = cureduce_strbuf_take(&numbered);
  if (text)
    cureduce_error_append(text);
  free(text);
}

static cureduce_status compile_failed(nvrtcProgram program, nvrtcResult result, const char *program_name,
                                      const char *options, const char *source) {
  size_t log_size = 0;
  nvrtc.nvrtcGetProgramLogSize(program, &log_size);
  char *log = malloc(log_size + 1);
  if (log && nvrtc.nvrtcGetProgramLog(program, log) == NVRTC_SUCCESS)
    log[log_size] = '\0';
  cureduce_status status = CUREDUCE_FAIL(COMPILE_FAILED, "NVRTC could not compile %s (%s) with options %s",
                                         program_name, nvrtc.nvrtcGetErrorString(result), options);
  cureduce_error_append("\n--- NVRTC log ---\n");
  cureduce_error_append(log ? log : "(no memory for the log)");
  append_numbered_source(source);
  free(log);
  return status;
}

static cureduce_status take_output(nvrtcProgram program, bool cubin, cureduce_binary *binary) {
  size_t size = 0;
  nvrtcResult result = cubin ? nvrtc.nvrtcGetCUBINSize(program, &size) : nvrtc.nvrtcGetPTXSize(program, &size);
  CUREDUCE_RETURN_ERROR_IF(result != NVRTC_SUCCESS || size == 0, COMPILE_FAILED,
                           "NVRTC compiled but gave no %s", cubin ? "CUBIN" : "PTX");
  void *data = malloc(size);
  CUREDUCE_RETURN_ERROR_IF(!data, OUT_OF_MEMORY, "no memory for a %zu-byte binary", size);
  result = cubin ? nvrtc.nvrtcGetCUBIN(program, data) : nvrtc.nvrtcGetPTX(program, data);
  if (result != NVRTC_SUCCESS) {
    free(data);
    return CUREDUCE_FAIL(COMPILE_FAILED, "NVRTC could not hand out its %s", cubin ? "CUBIN" : "PTX");
  }
  *binary = (cureduce_binary){data, size, cubin};
  return CUREDUCE_STATUS_OK;
}

cureduce_status cureduce_nvrtc_compile(const char *source, const char *program_name, int arch,
                                       cureduce_binary *binary) {
  CUREDUCE_FORWARD_IF_ERROR(get_nvrtc());
  bool exact;
  int target = pick_arch(arch, &exact);
  CUREDUCE_RETURN_ERROR_IF(target == 0, COMPILE_FAILED, "NVRTC %d knows no architecture at or below sm_%d",
                           nvrtc.version, arch);
  char arch_option[48];
  snprintf(arch_option, sizeof arch_option, "--gpu-architecture=%s_%d", exact ? "sm" : "compute", target);
  const char *options[] = {arch_option, CUREDUCE_NVRTC_OPTIONS};
  char options_text[96];
  snprintf(options_text, sizeof options_text, "%s %s", options[0], options[1]);

  nvrtcProgram program;
  nvrtcResult result = nvrtc.nvrtcCreateProgram(&program, source, program_name, 0, NULL, NULL);
  CUREDUCE_RETURN_ERROR_IF(result != NVRTC_SUCCESS, OUT_OF_MEMORY, "nvrtcCreateProgram failed: %s",
                           nvrtc.nvrtcGetErrorString(result));
  result = nvrtc.nvrtcCompileProgram(program, 2, options);
  cureduce_status status = result == NVRTC_SUCCESS ? take_output(program, exact, binary)
                                                   : compile_failed(program, result, program_name, options_text, source);
  nvrtc.nvrtcDestroyProgram(&program);
  return status;
}
