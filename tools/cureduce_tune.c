/* cureduce-tune: times candidate kernels on the GPU in hand and stores the fastest per
 * (operation, input type, output type, size bucket), or per shape class of the shapes named, in
 * the tuning database beside the kernel cache, where every later process on the machine finds
 * them, compiled kernels included. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <errno.h>
#include <unistd.h>

/* Beyond the public API, which tunes one (operation, types) at a time: tune.h tunes every pair
 * at once with progress reports, compiles offline without a GPU (--offline), and reads and writes
 * the tuning database (--list, --export, --import, --clear); cachefile.h finds the cache;
 * problem.h says which shapes the library takes. */
#include "cachefile.h"
#include "dtype.h"
#include "emit_source.h"
#include "problem.h"
#include "tool_options.h"
#include "tune.h"

static void usage(FILE *out) {
  fputs("usage: cureduce-tune [options]\n"
        "\n"
        "Times candidate kernels on the GPU and stores the fastest for each operation, input type,\n"
        "output type and size bucket in the tuning database beside the kernel cache\n"
        "($CUREDUCE_CACHE_DIR, else $XDG_CACHE_HOME/cureduce, else ~/.cache/cureduce). Default:\n"
        "every operation and type, sizes 2^8 to 2^30.\n"
        "\n"
        "  --ops LIST          operations, e.g. sum,max\n"
        "  --types LIST        input types, e.g. f32,bf16 (each with every output type it allows)\n"
        "  --min N, --max N    the size range, e.g. 2^8 and 2^30\n"
        "  --shapes LIST       tune these shapes instead of whole arrays: rows:RxC (R rows of C\n"
        "                      elements, one result a row; the default layout), columns:RxC (one\n"
        "                      result a column), segments:SxL (S segments, timed at length L each),\n"
        "                      e.g. 4096x1024,columns:2^20x64; each choice serves every shape of its\n"
        "                      class: the same rows bit length and row length (short rows) or its\n"
        "                      bit length; n:N, a whole array of N elements, for its size bucket.\n"
        "                      exact_sum takes rows, columns and segments into float types.\n"
        "  --transform NAME    with --shapes: tune them with this map fused (abs, square, nonzero;\n"
        "                      product: x with y, both random data, e.g. a batch of dot products;\n"
        "                      float types; each transformed class is tuned apart from the plain one)\n"
        "  --expression TEXT   with --shapes: the same with a map of your own, e.g. 'x * x'\n"
        "  --quick             a small candidate space (seconds, for CI images and demos)\n"
        "  --json              print the results as JSON instead of a table\n"
        "  --list              print what the database holds for this GPU, and exit (sizes\n"
        "                      shown for the --min/--max range given)\n"
        "  --clear             delete this GPU's tuning database, and exit\n"
        "  --export FILE       copy this GPU's tuning database to FILE (to pin a configuration)\n"
        "  --import FILE       merge a database exported on this same GPU\n"
        "  --device N          CUDA device ordinal (default 0)\n"
        "  --offline           no GPU needed: compile and store every kernel the tuner could pick,\n"
        "  --arch sm_XY        for this architecture, to warm a container image's kernel cache\n"
        "  --emit-source SPEC  print the CUDA source of one kernel spec, and exit\n"
        "  -h, --help          this text\n"
        "\n"
        "--list, --clear, --export and --import need the GPU too: its database is named by the GPU's\n"
        "name, architecture, memory and driver.\n"
        "\n"
        "Exit status: 0 done, 1 failed, 2 bad options, 77 no GPU (without --offline).\n",
        out);
}

enum { max_items = 16, max_shapes = 64 };

typedef struct options {
  int ops[max_items], op_count, types[max_items], type_count;
  cureduce_tool_shape shapes[max_shapes];
  int shape_count;
  size_t min_n, max_n;
  bool quick, json, list, clear, offline;
  int device, arch;
  const char *emit_source, *export_file, *import_file;
  cureduce_transform transform; /* --transform or --expression */
  const char *expression;
} options;

/* The long options' ids, past every character getopt_long returns. */
enum {
  OPTION_OPS = 256, OPTION_TYPES, OPTION_MIN, OPTION_MAX, OPTION_SHAPES, OPTION_QUICK, OPTION_JSON, OPTION_LIST,
  OPTION_CLEAR, OPTION_EXPORT, OPTION_IMPORT, OPTION_DEVICE, OPTION_OFFLINE, OPTION_ARCH, OPTION_EMIT,
  OPTION_TRANSFORM, OPTION_EXPRESSION
};

/* One option and its argument (optarg) into o; false, with *why, for a bad value. */
static bool parse_option(int c, void *into, const char **why) {
  options *o = into;
  bool ok = true;
  switch (c) {
  case OPTION_OPS:
    ok = cureduce_tool_parse_names(optarg, cureduce_op_from_name, o->ops, max_items, &o->op_count);
    *why = "--ops takes a comma list of operations (see --help)";
    break;
  case OPTION_TYPES:
    ok = cureduce_tool_parse_names(optarg, cureduce_dtype_from_name, o->types, max_items, &o->type_count);
    *why = "--types takes a comma list of f16, bf16, f32, f64, i8, u8, i32, u32, i64, u64";
    break;
  case OPTION_MIN:
  case OPTION_MAX:
    ok = cureduce_tool_parse_size(optarg, c == OPTION_MIN ? &o->min_n : &o->max_n);
    *why = c == OPTION_MIN ? "--min takes a size above 0, e.g. 2^8 or 256" : "--max takes a size above 0, e.g. 2^30";
    break;
  case OPTION_SHAPES:
    ok = cureduce_tool_parse_shapes(optarg, o->shapes, max_shapes, &o->shape_count);
    *why = "--shapes takes a comma list of RxC, rows:RxC, columns:RxC, segments:SxL or n:N, sizes above 0 "
           "(e.g. 4096x1024, columns:2^20x64 or n:2^28), at most 64";
    break;
  case OPTION_QUICK: o->quick = true; break;
  case OPTION_JSON: o->json = true; break;
  case OPTION_LIST: o->list = true; break;
  case OPTION_CLEAR: o->clear = true; break;
  case OPTION_EXPORT: o->export_file = optarg; break;
  case OPTION_IMPORT: o->import_file = optarg; break;
  case OPTION_DEVICE:
    ok = cureduce_tool_parse_int(optarg, 0, &o->device);
    *why = "--device takes a device ordinal, 0 or more";
    break;
  case OPTION_OFFLINE: o->offline = true; break;
  case OPTION_ARCH:
    ok = cureduce_tool_parse_arch(optarg, &o->arch);
    *why = "--arch takes an architecture such as sm_90 or 90, sm_50 or newer";
    break;
  case OPTION_EMIT: o->emit_source = optarg; break;
  case OPTION_TRANSFORM: {
    int transform = cureduce_transform_from_name(optarg);
    ok = transform > CUREDUCE_TRANSFORM_NONE && !cureduce_transform_has_expression((cureduce_transform)transform) &&
         !o->transform;
    o->transform = (cureduce_transform)(ok ? transform : 0);
    *why = "--transform takes abs, square, nonzero or product, once (a map of your own: --expression instead)";
    break;
  }
  case OPTION_EXPRESSION:
    ok = !o->transform;
    o->transform = CUREDUCE_TRANSFORM_EXPRESSION, o->expression = optarg;
    *why = "--expression instead of --transform, once";
    break;
  case 'h': usage(stdout); exit(0);
  default: ok = false;
  }
  return ok;
}

/* Why the options do not go together, or NULL when they do. */
static const char *options_conflict(const void *from) {
  const options *o = from;
  if (o->min_n > o->max_n)
    return "--min is above --max";
  if (o->offline && !o->arch)
    return "--offline needs --arch sm_XY: there is no GPU to ask";
  if (o->transform && !o->shape_count)
    return "--transform and --expression tune named problems: give --shapes (n:N for a whole array)";
  return NULL;
}

/* Every operation and every type where the options name none. */
static void complete_options(options *o) {
  if (!o->op_count)
    for (; o->op_count < CUREDUCE_OP_COUNT; o->op_count++)
      o->ops[o->op_count] = o->op_count;
  if (!o->type_count)
    for (; o->type_count < CUREDUCE_DTYPE_COUNT; o->type_count++)
      o->types[o->type_count] = o->type_count;
}

static int parse_options(int argc, char **argv, options *o) {
  static const struct option long_options[] = {{"ops", required_argument, NULL, OPTION_OPS},
                                               {"types", required_argument, NULL, OPTION_TYPES},
                                               {"min", required_argument, NULL, OPTION_MIN},
                                               {"max", required_argument, NULL, OPTION_MAX},
                                               {"shapes", required_argument, NULL, OPTION_SHAPES},
                                               {"quick", no_argument, NULL, OPTION_QUICK},
                                               {"json", no_argument, NULL, OPTION_JSON},
                                               {"list", no_argument, NULL, OPTION_LIST},
                                               {"clear", no_argument, NULL, OPTION_CLEAR},
                                               {"export", required_argument, NULL, OPTION_EXPORT},
                                               {"import", required_argument, NULL, OPTION_IMPORT},
                                               {"device", required_argument, NULL, OPTION_DEVICE},
                                               {"offline", no_argument, NULL, OPTION_OFFLINE},
                                               {"arch", required_argument, NULL, OPTION_ARCH},
                                               {"emit-source", required_argument, NULL, OPTION_EMIT},
                                               {"transform", required_argument, NULL, OPTION_TRANSFORM},
                                               {"expression", required_argument, NULL, OPTION_EXPRESSION},
                                               {"help", no_argument, NULL, 'h'},
                                               {NULL, 0, NULL, 0}};
  *o = (options){.min_n = (size_t)1 << 8, .max_n = (size_t)1 << 30};
  const cureduce_tool_command_line line = {"cureduce-tune", "h", long_options, parse_option, options_conflict};
  if (!cureduce_tool_parse_command_line(&line, argc, argv, o))
    return 2;
  complete_options(o);
  return 0;
}

/* Every (op, input, output) the options name: each input with its own type and, for sums and
 * products, its wider accumulator (of the mapped values, with a transform); exact_sum for float
 * inputs only, and to i64 (its words); with a transform, the pairs it takes. */
static size_t make_jobs(const options *o, cureduce_tune_job *jobs) {
  size_t count = 0;
  for (int p = 0; p < o->op_count; p++)
    for (int t = 0; t < o->type_count; t++) {
      cureduce_op op = (cureduce_op)o->ops[p];
      cureduce_dtype input = (cureduce_dtype)o->types[t], accumulator;
      if (cureduce_accumulator_type(op, cureduce_mapped_type(o->transform, input), &accumulator) !=
              CUREDUCE_STATUS_OK ||
          cureduce_check_transform_types(op, o->transform, input, input) != CUREDUCE_STATUS_OK)
        continue;
      jobs[count++] = (cureduce_tune_job){.op = op, .input = input, .output = input};
      if (accumulator != input)
        jobs[count++] = (cureduce_tune_job){.op = op, .input = input, .output = accumulator};
      if (cureduce_is_exact_partial(op, CUREDUCE_I64))
        jobs[count++] = (cureduce_tune_job){.op = op, .input = input, .output = CUREDUCE_I64};
    }
  return count;
}

/* Every job's op and types on every shape the options name, but those the library refuses (exact
 * partials of a shape) and exact sums of whole arrays (n:N), which the whole-array tune covers. */
static size_t make_shape_jobs(const options *o, const cureduce_tune_job *jobs, size_t job_count,
                              cureduce_tune_shape *shapes) {
  size_t count = 0;
  for (size_t j = 0; j < job_count; j++)
    for (int i = 0; i < o->shape_count; i++) {
      const cureduce_tool_shape *named = &o->shapes[i];
      if (jobs[j].op == CUREDUCE_OP_EXACT_SUM && named->layout == CUREDUCE_LAYOUT_CONTIGUOUS)
        continue;
      cureduce_tune_shape *shape = &shapes[count];
      *shape = (cureduce_tune_shape){0};
      if (named->layout == CUREDUCE_LAYOUT_SEGMENTS) {
        cureduce_problem_init_segments(&shape->problem, jobs[j].op, jobs[j].input, jobs[j].output, named->rows);
        shape->segment_length = named->cols;
      } else if (named->layout == CUREDUCE_LAYOUT_CONTIGUOUS) {
        cureduce_problem_init(&shape->problem, jobs[j].op, jobs[j].input, jobs[j].output, named->rows);
      } else {
        cureduce_problem_init_matrix(&shape->problem, (cureduce_layout)named->layout, jobs[j].op, jobs[j].input,
                                     jobs[j].output, named->rows, named->cols, named->cols);
      }
      shape->problem.transform = o->transform, shape->problem.expression = o->expression;
      count += cureduce_problem_check(&shape->problem) != CUREDUCE_STATUS_UNSUPPORTED;
    }
  return count;
}

static double seconds_since(const struct timespec *start) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)(now.tv_sec - start->tv_sec) + (double)(now.tv_nsec - start->tv_nsec) * 1e-9;
}

/* When the tune began, and how long its compiling step took (the progress reports that step
 * ending as "compiled"). */
typedef struct tune_clock {
  struct timespec start;
  double compiled_s;
} tune_clock;

/* A bar on a terminal, a line every tenth otherwise. `user` is a tune_clock or NULL. */
static void show_progress(void *user, size_t done, size_t total, const char *what) {
  static size_t last_tenth = (size_t)-1;
  tune_clock *clock = user;
  if (clock && done == total && strncmp(what, "compiled", 8) == 0)
    clock->compiled_s = seconds_since(&clock->start);
  if (isatty(STDERR_FILENO)) {
    int filled = total ? (int)(30 * done / total) : 30;
    fprintf(stderr, "\r[%.*s%*s] %zu/%zu %-40s", filled, "##############################", 30 - filled, "", done, total,
            what);
    if (done == total)
      fputc('\n', stderr);
  } else if (total && done * 10 / total != last_tenth) {
    last_tenth = done * 10 / total;
    fprintf(stderr, "%s: %zu/%zu\n", what, done, total);
  }
}

/* The work of a run: whole-array jobs, or (--shapes) the jobs' operations and types on shapes. */
typedef struct tune_work {
  const cureduce_tune_job *jobs;
  size_t job_count;
  cureduce_tune_shape *shapes;
  size_t shape_count;
} tune_work;

static int run_offline(const options *o, const tune_work *w) {
  char root[4096];
  if (!cureduce_cache_location(NULL, root, sizeof root)) {
    fprintf(stderr, "cureduce-tune: no cache location: set CUREDUCE_CACHE_DIR\n");
    return 1;
  }
  cureduce_logger logger = {cureduce_log_level_from_env(CUREDUCE_LOG_WARN), NULL, NULL};
  cureduce_diskcache disk;
  cureduce_diskcache_open(&disk, root, &logger);
  cureduce_tune_options progress = {.progress = show_progress};
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  int threads = cpus > 0 ? (int)cpus : 1;
  /* Without a GPU: an H200's SMs, which change only launch fields, not what is compiled. */
  cureduce_status status =
      w->shape_count ? cureduce_tune_compile_shapes(w->shapes, w->shape_count, o->quick, o->arch, 132, 2048, &disk,
                                                    &logger, threads, &progress)
                     : cureduce_tune_compile(w->jobs, w->job_count, o->quick, o->arch, &disk, &logger, threads,
                                             &progress);
  bool stored = disk.writable;
  cureduce_diskcache_close(&disk);
  if (status != CUREDUCE_STATUS_OK || !stored) {
    fprintf(stderr, "cureduce-tune: %s\n", status != CUREDUCE_STATUS_OK ? cureduce_last_error_detail()
                                                                          : "the kernel cache could not be written");
    return 1;
  }
  printf("compiled every kernel the tuner could pick for %zu %s for sm_%d into %s/kernels\n",
         w->shape_count ? w->shape_count : w->job_count, w->shape_count ? "shapes" : "(operation, type) pairs",
         o->arch, root);
  return 0;
}

static double gbps(size_t n, cureduce_dtype type, double us) { return (double)n * cureduce_dtype_size(type) / (us * 1e3); }

/* What a record serves: the size its bucket was measured at, for the options' size range; for a
 * shape class, its layout, the least rows of its bucket, and its row length or the least of its
 * bucket ("+": and more). */
static void key_text(const cureduce_tune_record *r, const options *o, char *text, size_t size) {
  static const char *const layouts[] = {"n", "rows", "columns", "segments"};
  if (r->layout == CUREDUCE_LAYOUT_CONTIGUOUS) {
    snprintf(text, size, "%zu", cureduce_tune_bucket_size(r->bucket, o->min_n, o->max_n));
    return;
  }
  unsigned long long least_rows = r->bucket ? 1ull << (r->bucket - 1) : 0;
  if (r->layout == CUREDUCE_LAYOUT_SEGMENTS) {
    snprintf(text, size, "segments %llu+", least_rows);
    return;
  }
  char cols[32];
  unsigned compiled = cureduce_tunedb_class_length(r->cols_class);
  unsigned bits = (r->cols_class & ~CUREDUCE_COLS_PADDED) - CUREDUCE_COLS_BUCKETED;
  if (compiled)
    snprintf(cols, sizeof cols, "%u", compiled);
  else
    snprintf(cols, sizeof cols, "%llu+", bits ? 1ull << (bits - 1) : 0);
  snprintf(text, size, "%s %llu+ x %s%s", layouts[r->layout], least_rows, cols,
           (r->cols_class & CUREDUCE_COLS_PADDED) ? " padded" : "");
}

/* The records, each with what it serves; whole-array ones with their bandwidth at that size. */
static void print_records(const cureduce_tunedb *db, const options *o, bool json) {
  if (json)
    printf("[\n");
  else
    printf("%-7s %-11s %-26s  %-50s %10s %8s %10s %8s\n", "op", "types", "tuned for", "chosen spec", "us", "GB/s",
           "default", "speedup");
  for (size_t i = 0; i < db->count; i++) {
    const cureduce_tune_record *r = &db->records[i];
    char spec[CUREDUCE_SPEC_TEXT_MAX], types[24], key[64], rate[16] = "-";
    cureduce_spec_format(&r->spec, spec);
    snprintf(types, sizeof types, "%s->%s", cureduce_dtype_name(r->input), cureduce_dtype_name(r->output));
    key_text(r, o, key, sizeof key);
    size_t n = cureduce_tune_bucket_size(r->bucket, o->min_n, o->max_n);
    if (r->layout == CUREDUCE_LAYOUT_CONTIGUOUS)
      snprintf(rate, sizeof rate, "%.1f", gbps(n, r->input, r->time_us));
    if (json)
      printf("  {\"op\": \"%s\", \"input\": \"%s\", \"output\": \"%s\", \"layout\": %u, \"bucket\": %u, "
             "\"cols_class\": %u, \"tuned_for\": \"%s\", \"spec\": \"%s\", \"us\": %.3f, \"default_us\": %.3f, "
             "\"nvrtc\": %u}%s\n",
             cureduce_op_name(r->op), cureduce_dtype_name(r->input), cureduce_dtype_name(r->output), r->layout,
             r->bucket, r->cols_class, key, spec, r->time_us, r->default_us, r->nvrtc_version,
             i + 1 < db->count ? "," : "");
    else
      printf("%-7s %-11s %-26s  %-50s %10.2f %8s %10.2f %8.3f\n", cureduce_op_name(r->op), types, key, spec,
             r->time_us, rate, r->default_us, r->default_us / r->time_us);
  }
  if (json)
    printf("]\n");
}

static int copy_file(const char *from, const char *to) {
  void *data;
  size_t size;
  if (!cureduce_read_file(from, 64 << 20, &data, &size) || !cureduce_write_file_atomic(to, data, size)) {
    fprintf(stderr, "cureduce-tune: cannot copy %s to %s\n", from, to);
    return 1;
  }
  free(data);
  return 0;
}

/* The maintenance actions: --list, --clear, --export, --import. */
static int maintain(const options *o, cureduce_context *context) {
  const char *path = context->tunedb_path;
  if (!path[0]) {
    fprintf(stderr, "cureduce-tune: no cache location\n");
    return 1;
  }
  if (o->clear) {
    char lock[4400];
    snprintf(lock, sizeof lock, "%s.lock", path);
    unlink(lock);
    if (unlink(path) != 0 && errno != ENOENT) {
      fprintf(stderr, "cureduce-tune: cannot delete %s\n", path);
      return 1;
    }
    printf("deleted the tuning database of %s (%s)\n", context->info.name, path);
    return 0;
  }
  if (o->export_file)
    return copy_file(path, o->export_file);
  if (o->import_file) {
    cureduce_tunedb imported = {0};
    void *data;
    size_t size;
    if (!cureduce_read_file(o->import_file, 64 << 20, &data, &size)) {
      fprintf(stderr, "cureduce-tune: cannot read %s: %s\n", o->import_file, errno ? strerror(errno) : "too large");
      return 1;
    }
    cureduce_tunedb_verdict verdict = cureduce_tunedb_decode(context->gpu_key, data, size, &imported);
    free(data);
    if (verdict != CUREDUCE_TUNEDB_VALID) {
      fprintf(stderr, "cureduce-tune: %s is not a valid tuning database of this GPU\n", o->import_file);
      cureduce_tunedb_free(&imported);
      return 1;
    }
    cureduce_status status = cureduce_tunedb_merge(path, context->gpu_key, &imported, &context->logger);
    printf("imported %zu records\n", imported.count);
    cureduce_tunedb_free(&imported);
    return status == CUREDUCE_STATUS_OK ? 0 : 1;
  }
  printf("# %s\n# %s\n", path, context->gpu_key);
  print_records(&context->tuned, o, o->json);
  return 0;
}

/* Tunes the work on the context's GPU and prints what it chose. */
static int tune(const options *o, const tune_work *w, cureduce_context *context) {
  tune_clock clock = {.compiled_s = 0};
  clock_gettime(CLOCK_MONOTONIC, &clock.start);
  cureduce_tune_options tune_options = {o->min_n, o->max_n, o->quick, show_progress, &clock};
  cureduce_tunedb results;
  cureduce_status status =
      w->shape_count ? cureduce_tune_shapes(context, w->shapes, w->shape_count, &tune_options, &results)
                     : cureduce_tune_jobs(context, w->jobs, w->job_count, &tune_options, &results);
  double seconds = seconds_since(&clock.start);
  if (status != CUREDUCE_STATUS_OK) {
    fprintf(stderr, "cureduce-tune: %s\n", cureduce_last_error_detail());
    return 1;
  }
  print_records(&results, o, o->json);
  fprintf(o->json ? stderr : stdout,
          "tuned %zu %s of %zu (operation, types) on %s in %.1f s%s (compiling %.1f s, timing %.1f s); stored in %s\n",
          results.count, w->shape_count ? "shapes" : "buckets", w->job_count, context->info.name, seconds,
          o->quick ? " (quick)" : "", clock.compiled_s, seconds - clock.compiled_s,
          context->tunedb_path[0] ? context->tunedb_path : "memory only");
  cureduce_tunedb_free(&results);
  return 0;
}

/* Offline, maintenance or tuning, as the options say. */
static int run(const options *o, const tune_work *w) {
  if (o->offline)
    return run_offline(o, w);
  if (o->import_file && access(o->import_file, R_OK) != 0) { /* said before the GPU is looked for */
    fprintf(stderr, "cureduce-tune: cannot read %s: %s\n", o->import_file, strerror(errno));
    return 1;
  }
  bool maintenance = o->list || o->clear || o->export_file || o->import_file;
  cureduce_settings settings;
  cureduce_default_settings(&settings);
  settings.device = o->device;
  cureduce_context *context;
  cureduce_status status = cureduce_context_create(&context, &settings);
  if (status != CUREDUCE_STATUS_OK) {
    bool no_gpu = status == CUREDUCE_STATUS_NO_DRIVER || status == CUREDUCE_STATUS_NO_DEVICE;
    fprintf(stderr, "cureduce-tune: %s%s\n", cureduce_last_error_detail(),
            !no_gpu       ? ""
            : maintenance ? "\n(no GPU: the tuning database is named by the GPU, so --list, --clear, --export and "
                            "--import need one)"
                          : "\n(no GPU: --offline --arch sm_XY compiles the kernels without one)");
    return no_gpu ? 77 : 1;
  }
  int code = maintenance ? maintain(o, context) : tune(o, w, context);
  cureduce_context_destroy(context);
  return code;
}

int main(int argc, char **argv) {
  options o;
  int bad = parse_options(argc, argv, &o);
  if (bad)
    return bad;
  if (o.emit_source)
    return cureduce_tool_emit_source("cureduce-tune", o.emit_source);
  cureduce_tune_job jobs[CUREDUCE_OP_COUNT * CUREDUCE_DTYPE_COUNT * 3];
  tune_work work = {.jobs = jobs, .job_count = make_jobs(&o, jobs)};
  if (o.shape_count) {
    work.shapes = malloc(work.job_count * (size_t)o.shape_count * sizeof *work.shapes);
    if (!work.shapes) {
      fprintf(stderr, "cureduce-tune: out of memory\n");
      return 1;
    }
    work.shape_count = make_shape_jobs(&o, jobs, work.job_count, work.shapes);
    if (!work.shape_count) {
      fprintf(stderr, "cureduce-tune: none of the operations and types named takes these shapes\n");
      free(work.shapes);
      return 2;
    }
  }
  int code = run(&o, &work);
  free(work.shapes);
  return code;
}
