#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "error.h"
#include "exact.h"
#include "expression.h"
#include "source.h"
#include "strbuf.h"

static void write_id(cureduce_strbuf *out, const char *prefix, const char *name, int id) {
  cureduce_strbuf_append(out, prefix);
  for (const char *c = name; *c; c++)
    cureduce_strbuf_printf(out, "%c", toupper((unsigned char)*c));
  cureduce_strbuf_printf(out, " %d\n", id);
}

/* The ids of the public enums, written into every source so the templates never repeat them. */
static void write_enum_ids(cureduce_strbuf *out) {
  for (int op = 0; op < CUREDUCE_OP_COUNT; op++)
    write_id(out, "#define CUREDUCE_OP_", cureduce_op_name((cureduce_op)op), op);
  for (int dtype = 0; dtype < CUREDUCE_DTYPE_COUNT; dtype++)
    write_id(out, "#define CUREDUCE_DTYPE_", cureduce_dtype_name((cureduce_dtype)dtype), dtype);
  for (int transform = 0; transform < CUREDUCE_TRANSFORM_COUNT; transform++)
    write_id(out, "#define CUREDUCE_TRANSFORM_", cureduce_transform_name((cureduce_transform)transform), transform);
}

static const char *const layout_names[] = {"contiguous", "rows", "columns", "segments"};

/* A shaped kernel's layout (with the enum's ids), group and compiled row length; for column tiles
 * the threads an SM they are compiled for where their accumulators are narrow
 * (CUREDUCE_MIN_BLOCKS_PER_SM), and the host's bound of those threads. */
static void write_shape_defines(cureduce_strbuf *out, const cureduce_spec *spec) {
  for (int layout = 0; layout < (int)(sizeof layout_names / sizeof layout_names[0]); layout++)
    write_id(out, "#define CUREDUCE_LAYOUT_", layout_names[layout], layout);
  cureduce_strbuf_printf(out,
                         "#define CUREDUCE_LAYOUT %d\n#define CUREDUCE_GROUP %u\n#define CUREDUCE_COLS %u\n"
                         "#define CUREDUCE_INPUT_BYTES %zu\n",
                         (int)cureduce_strategy_layout((cureduce_strategy)spec->strategy), spec->group, spec->cols,
                         cureduce_dtype_size((cureduce_dtype)spec->input));
  if (spec->strategy == CUREDUCE_STRATEGY_COLUMN_TILES)
    cureduce_strbuf_printf(out, "#define CUREDUCE_COLUMN_THREADS_PER_SM %d\n", CUREDUCE_COLUMN_THREADS_PER_SM);
  unsigned min_blocks = cureduce_spec_min_blocks_per_sm(spec);
  if (min_blocks)
    cureduce_strbuf_printf(out, "#define CUREDUCE_MIN_BLOCKS_PER_SM %u\n", min_blocks);
}

/* The caller's map, before the templates (transforms.cuh calls it): the expression as
 * written, over x (and y for a pair), its lines numbered as its own in NVRTC's messages. false when
 * the digest is unknown. */
static bool write_user_map(cureduce_strbuf *out, const cureduce_spec *spec) {
  const char *text = cureduce_expression_find(spec->expression);
  if (!text)
    return false;
  const char *type = spec->input == CUREDUCE_F64 ? "double" : "float";
  bool pair = cureduce_transform_is_pair((cureduce_transform)spec->transform);
  cureduce_strbuf_printf(out, "__device__ __forceinline__ %s cureduce_user_map(%s x%s%s%s) {\n  return (%s)(\n", type,
                         type, pair ? ", " : "", pair ? type : "", pair ? " y" : "", type);
  cureduce_strbuf_printf(out, "#line 1 \"expression\"\n%s\n);\n}\n", text);
  return true;
}

static void write_template(cureduce_strbuf *out, const char *name, const char *text) {
  cureduce_strbuf_printf(out, "#line 1 \"%s\"\n", name);
  cureduce_strbuf_append(out, text);
}

/* What every kernel is built on, in order: element types, operations, transforms, warp and block
 * folds, vector loads, the grid's accumulation and finish. */
static const char *const shared_templates[] = {"elements.cuh",     "operations.cuh",   "transforms.cuh",
                                               "block_folds.cuh",  "vector_loads.cuh", "accumulate.cuh"};
enum { SHARED_TEMPLATES = sizeof shared_templates / sizeof shared_templates[0], TEMPLATES_MAX = SHARED_TEMPLATES + 4 };

/* The templates of a strategy, in order: the shared ones, then for the classic ladder its
 * scaffolding around the rung, for a shaped strategy what the shapes share and the strategy, for
 * exact_sum its rounding, its machinery and its own kernels (a whole array's, or those of rows and
 * segments or of columns after what the shapes share), else the strategy alone. */
static int strategy_templates(const cureduce_spec *spec, const char *files[TEMPLATES_MAX]) {
  const char *strategy = cureduce_strategy_template(spec->strategy);
  int count = 0;
  for (; count < SHARED_TEMPLATES; count++)
    files[count] = shared_templates[count];
  if (cureduce_strategy_passes(spec->strategy) == CUREDUCE_PASSES_CLASSIC) {
    files[count++] = "ladder.cuh";
    files[count++] = strategy;
    files[count++] = "ladder_kernels.cuh";
    return count;
  }
  bool shaped = cureduce_strategy_coverage(spec->strategy) == CUREDUCE_COVER_SHAPE;
  if (shaped)
    files[count++] = "shapes.cuh";
  if (spec->op == CUREDUCE_OP_EXACT_SUM) { /* the rounding it shares with the host */
    files[count++] = "exact_round.h";
    files[count++] = "exact.cuh";
    static const char *const shaped_kernels[] = {
        [CUREDUCE_EXACT_BLOCK_ROWS] = "exact_rows.cu",
        [CUREDUCE_EXACT_WARP_COLUMNS] = "exact_columns.cu",
        [CUREDUCE_EXACT_GROUPS] = "exact_groups.cu",
    };
    files[count++] = shaped ? shaped_kernels[cureduce_exact_kernel_of(spec)] : "exact_sum.cu";
    return count;
  }
  files[count++] = strategy;
  return count;
}

cureduce_status cureduce_source_generate(const cureduce_spec *spec, const cureduce_template_set *templates,
                                         char **source) {
  CUREDUCE_RETURN_ERROR_IF(!templates || !source, NULL_POINTER, "templates and source must not be NULL");
  CUREDUCE_FORWARD_IF_ERROR(cureduce_spec_validate_kernel(spec));
  const char *files[TEMPLATES_MAX];
  int count = strategy_templates(spec, files);
  for (int i = 0; i < count; i++)
    CUREDUCE_RETURN_ERROR_IF(!cureduce_template_find(templates, files[i]), INVALID_ARGUMENT,
                             "template %s is missing", files[i]);

  /* The source is the same for every blocks-per-SM value (a launch choice), so that they share
   * one compiled kernel: the first line names the spec without it. */
  char text[CUREDUCE_SPEC_TEXT_MAX];
  cureduce_spec kernel = cureduce_spec_kernel_part(spec);
  cureduce_spec_format(&kernel, text);
  *strrchr(text, '/') = '\0';
  cureduce_strbuf out = {0};
  cureduce_strbuf_printf(&out, "// Generated by cureduce %s for %s (any blocks per SM)\n", cureduce_version_string(),
                         text);
  write_enum_ids(&out);
  cureduce_strbuf_printf(&out,
                         "#define CUREDUCE_OP %u\n#define CUREDUCE_INPUT %u\n#define CUREDUCE_OUTPUT %u\n"
                         "#define CUREDUCE_BLOCK %u\n#define CUREDUCE_UNROLL %u\n"
                         "#define CUREDUCE_VECTOR_BYTES %u\n#define CUREDUCE_TRANSFORM %u\n",
                         spec->op, spec->input, spec->output, spec->block, spec->unroll, spec->vector_bytes,
                         spec->transform);
  if (cureduce_strategy_coverage(spec->strategy) == CUREDUCE_COVER_SHAPE)
    write_shape_defines(&out, spec);
  if (spec->op == CUREDUCE_OP_EXACT_SUM) {
    cureduce_exact_layout layout = cureduce_exact_layout_of((cureduce_dtype)spec->input);
    cureduce_exact_format format = cureduce_exact_format_of((cureduce_dtype)spec->output);
    cureduce_strbuf_printf(&out,
                           "#define CUREDUCE_EXACT_BASE (%d)\n#define CUREDUCE_EXACT_DIGITS %u\n"
                           "#define CUREDUCE_EXACT_PRECISION %d\n#define CUREDUCE_EXACT_LOWEST (%d)\n",
                           layout.base, layout.digits, format.precision, format.lowest);
  }
  if (cureduce_transform_has_expression((cureduce_transform)spec->transform) && !write_user_map(&out, spec)) {
    free(cureduce_strbuf_take(&out));
    return CUREDUCE_FAIL(INVALID_SPEC,
                         "the spec's expression %016llx is not one this process has seen: make a plan for a problem "
                         "with its text first (the digest alone cannot be compiled)",
                         (unsigned long long)spec->expression);
  }
  for (int i = 0; i < count; i++)
    write_template(&out, files[i], cureduce_template_find(templates, files[i]));
  *source = cureduce_strbuf_take(&out);
  CUREDUCE_RETURN_ERROR_IF(!*source, OUT_OF_MEMORY, "no memory for the kernel source");
  return CUREDUCE_STATUS_OK;
}
