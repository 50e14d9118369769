#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "error.h"
#include "exact.h"
#include "spec.h"

static const struct {
  const char *name;
  const char *template_file;
  cureduce_passes passes;
  cureduce_coverage coverage;
  cureduce_layout layout;
  const char *description;
} strategy_table[CUREDUCE_STRATEGY_COUNT] = {
#define CUREDUCE_STRATEGY_ROW(id, name, file, passes, coverage, layout, what) \
  {name, file, CUREDUCE_PASSES_##passes, CUREDUCE_COVER_##coverage, CUREDUCE_LAYOUT_##layout, what},
    CUREDUCE_STRATEGY_LIST(CUREDUCE_STRATEGY_ROW)
#undef CUREDUCE_STRATEGY_ROW
};

static bool is_power_of_two(unsigned x) { return x && !(x & (x - 1)); }

const char *cureduce_strategy_name(cureduce_strategy strategy) {
  return strategy < CUREDUCE_STRATEGY_COUNT ? strategy_table[strategy].name : NULL;
}
const char *cureduce_strategy_template(cureduce_strategy strategy) {
  return strategy < CUREDUCE_STRATEGY_COUNT ? strategy_table[strategy].template_file : NULL;
}
const char *cureduce_strategy_description(cureduce_strategy strategy) {
  return strategy < CUREDUCE_STRATEGY_COUNT ? strategy_table[strategy].description : NULL;
}

cureduce_passes cureduce_strategy_passes(cureduce_strategy strategy) { return strategy_table[strategy].passes; }
cureduce_coverage cureduce_strategy_coverage(cureduce_strategy strategy) { return strategy_table[strategy].coverage; }
cureduce_layout cureduce_strategy_layout(cureduce_strategy strategy) { return strategy_table[strategy].layout; }
bool cureduce_columns_run_as_rows(cureduce_op op, uint64_t rows) { return rows == 1 && op != CUREDUCE_OP_EXACT_SUM; }
size_t cureduce_compiled_length_max(cureduce_layout layout, cureduce_dtype input) {
  size_t element = cureduce_dtype_size(input);
  switch (layout) {
  case CUREDUCE_LAYOUT_ROWS: return CUREDUCE_COMPILED_ROW_BYTES_MAX / element;
  case CUREDUCE_LAYOUT_COLUMNS: return CUREDUCE_PACKED_LOAD_BYTES / element - 1;
  default: return 0;
  }
}
bool cureduce_strategy_is_production(cureduce_strategy strategy) {
  return strategy < CUREDUCE_STRATEGY_COUNT && strategy_table[strategy].passes == CUREDUCE_PASSES_SINGLE;
}

size_t cureduce_accumulator_bytes(cureduce_op op, cureduce_transform transform, cureduce_dtype input) {
  input = cureduce_mapped_type(transform, input); /* what the operation reduces */
  if (cureduce_op_is_arg(op))
    return 16; /* a value of at most 8 bytes, then the 8-byte index */
  if (op == CUREDUCE_OP_EXACT_SUM)
    return 8 * cureduce_exact_words(input); /* one for the whole grid (exact.h) */
  if (op == CUREDUCE_OP_NORM2)
    return input == CUREDUCE_F64 ? 24 : 8; /* three scaled sums of squares, or one f64 sum */
  if (cureduce_op_is_moments(op))
    return 32; /* shift, sum and squares of deviations (f64), count (u64) */
  if (op == CUREDUCE_OP_LOGSUMEXP)
    return input == CUREDUCE_F64 ? 16 : 8; /* the largest element, the rescaled sum */
  if (op == CUREDUCE_OP_MIN || op == CUREDUCE_OP_MAX)
    return input == CUREDUCE_F16 || input == CUREDUCE_BF16 ? 4 : cureduce_dtype_size(input); /* halves compare as f32 */
  cureduce_dtype accumulator;
  cureduce_accumulator_type(op, input, &accumulator);
  return cureduce_dtype_size(accumulator);
}

enum { COLUMN_ACCUMULATOR_BYTES_MAX = 8 };

unsigned cureduce_spec_min_blocks_per_sm(const cureduce_spec *spec) {
  if (spec->strategy != CUREDUCE_STRATEGY_COLUMN_TILES || spec->op == CUREDUCE_OP_EXACT_SUM || !spec->block)
    return 0;
  /* Wider accumulators (arg, the moments, norm2 and logsumexp of f64) would spill in 64 registers
   * (a variance of 8 f16 columns a thread: 872 bytes). */
  if (cureduce_accumulator_bytes((cureduce_op)spec->op, (cureduce_transform)spec->transform,
                                 (cureduce_dtype)spec->input) > COLUMN_ACCUMULATOR_BYTES_MAX)
    return 0;
  unsigned blocks = CUREDUCE_COLUMN_THREADS_PER_SM / spec->block;
  return blocks ? blocks : 1;
}

static bool whole_blocks_a_row(cureduce_strategy strategy) {
  return strategy == CUREDUCE_STRATEGY_ROW_BLOCKS || strategy == CUREDUCE_STRATEGY_SEGMENT_BLOCKS;
}

cureduce_exact_kernel cureduce_exact_kernel_of(const cureduce_spec *spec) {
  if (whole_blocks_a_row((cureduce_strategy)spec->strategy))
    return CUREDUCE_EXACT_BLOCK_ROWS;
  bool columns = spec->strategy == CUREDUCE_STRATEGY_COLUMN_TILES;
  return columns && spec->group == 32 ? CUREDUCE_EXACT_WARP_COLUMNS : CUREDUCE_EXACT_GROUPS;
}

/* Exact sums of shapes (cureduce_exact_kernel_of), each rounded: column tiles of a warp or a
 * thread a column, groups that take no compiled row length, and single elements a load where a
 * warp or a group reads them one by one. */
static cureduce_status check_exact_shaped_fields(const cureduce_spec *spec, const char *name) {
  CUREDUCE_RETURN_ERROR_IF(spec->output == CUREDUCE_I64, INVALID_SPEC,
                           "%s rounds each exact sum: exact partials (i64 output) are whole arrays' only", name);
  bool columns = spec->strategy == CUREDUCE_STRATEGY_COLUMN_TILES;
  CUREDUCE_RETURN_ERROR_IF(columns && spec->group != 32 && spec->group != 1, INVALID_SPEC,
                           "an exact sum of columns takes a warp a column (t32) or a thread a column (t1), not t%u",
                           spec->group);
  cureduce_exact_kernel kernel = cureduce_exact_kernel_of(spec);
  CUREDUCE_RETURN_ERROR_IF(kernel == CUREDUCE_EXACT_GROUPS && spec->cols, INVALID_SPEC,
                           "%s of exact sums reads the row length at run time: c must be 0", name);
  CUREDUCE_RETURN_ERROR_IF(columns && spec->group == 1 && spec->splits > 1, INVALID_SPEC,
                           "a thread a column (t1) takes its column whole: s must be 1, not %u", spec->splits);
  size_t element = cureduce_dtype_size(spec->input);
  CUREDUCE_RETURN_ERROR_IF(kernel != CUREDUCE_EXACT_BLOCK_ROWS && spec->vector_bytes != element, INVALID_SPEC,
                           "%s of exact sums loads one element at a time: v must be %zu, not %u", name, element,
                           spec->vector_bytes);
  return CUREDUCE_STATUS_OK;
}

/* Packed column tiles (column_tiles.cu): c columns, several of their rows to a 16-byte load, in a
 * tile one thread wide. */
static cureduce_status check_packed_columns(const cureduce_spec *spec, size_t element) {
  size_t row_bytes = (size_t)spec->cols * element;
  CUREDUCE_RETURN_ERROR_IF(spec->op == CUREDUCE_OP_EXACT_SUM, INVALID_SPEC,
                           "exact sums of columns read a row length at run time: c must be 0");
  CUREDUCE_RETURN_ERROR_IF(spec->cols > cureduce_compiled_length_max(CUREDUCE_LAYOUT_COLUMNS, spec->input) ||
                               CUREDUCE_PACKED_LOAD_BYTES % row_bytes != 0,
                           INVALID_SPEC, "packed columns (c%u) take rows that divide a %d-byte load: %u of %s are %zu bytes",
                           spec->cols, CUREDUCE_PACKED_LOAD_BYTES, spec->cols, cureduce_dtype_name(spec->input), row_bytes);
  CUREDUCE_RETURN_ERROR_IF(spec->vector_bytes != CUREDUCE_PACKED_LOAD_BYTES || spec->group != 1, INVALID_SPEC,
                           "packed columns (c%u) load %d bytes in a tile of one thread: v%d and t1, not v%u and t%u",
                           spec->cols, CUREDUCE_PACKED_LOAD_BYTES, CUREDUCE_PACKED_LOAD_BYTES, spec->vector_bytes,
                           spec->group);
  return CUREDUCE_STATUS_OK;
}

/* The group and compiled row length of a shaped strategy: groups of a power of two threads, a
 * row length only for row groups, and one short enough (cureduce_compiled_length_max). */
static cureduce_status check_shaped_fields(const cureduce_spec *spec, const char *name) {
  if (spec->op == CUREDUCE_OP_EXACT_SUM)
    CUREDUCE_FORWARD_IF_ERROR(check_exact_shaped_fields(spec, name));
  bool groups = spec->strategy == CUREDUCE_STRATEGY_ROW_GROUPS || spec->strategy == CUREDUCE_STRATEGY_SEGMENT_GROUPS;
  bool tiles = spec->strategy == CUREDUCE_STRATEGY_COLUMN_TILES;
  unsigned most = groups ? 32 : tiles ? spec->block : 0;
  CUREDUCE_RETURN_ERROR_IF(most && (!is_power_of_two(spec->group) || spec->group > most), INVALID_SPEC,
                           "%s needs t, a power of two from 1 to %u, not %u", name, most, spec->group);
  CUREDUCE_RETURN_ERROR_IF(!most && spec->group != 0, INVALID_SPEC, "%s takes whole blocks: t must be 0", name);
  size_t element = cureduce_dtype_size(spec->input);
  if (tiles && spec->cols)
    return check_packed_columns(spec, element);
  CUREDUCE_RETURN_ERROR_IF(spec->cols && spec->strategy != CUREDUCE_STRATEGY_ROW_GROUPS, INVALID_SPEC,
                           "only row_groups and column_tiles compile a row length in: c must be 0");
  size_t longest = cureduce_compiled_length_max(CUREDUCE_LAYOUT_ROWS, spec->input);
  CUREDUCE_RETURN_ERROR_IF(spec->cols > longest, INVALID_SPEC,
                           "a compiled row length is at most %zu elements of %s, not %u", longest,
                           cureduce_dtype_name(spec->input), spec->cols);
  return CUREDUCE_STATUS_OK;
}

/* What a strategy asks of the shape beyond the common ranges. */
static cureduce_status check_strategy_shape(const cureduce_spec *spec) {
  const char *name = strategy_table[spec->strategy].name;
  cureduce_coverage coverage = strategy_table[spec->strategy].coverage;
  size_t element = cureduce_dtype_size(spec->input);
  if (strategy_table[spec->strategy].passes == CUREDUCE_PASSES_CLASSIC) {
    /* The ladder teaches sum, prod, min and max: the operations numbered up to max. */
    CUREDUCE_RETURN_ERROR_IF(spec->op > CUREDUCE_OP_MAX, INVALID_SPEC,
                             "%s does not do %s", name, cureduce_op_name(spec->op));
    CUREDUCE_RETURN_ERROR_IF(!is_power_of_two(spec->block) || spec->block < 64, INVALID_SPEC,
                             "%s needs a power-of-two block of at least 64, not %u", name, spec->block);
    CUREDUCE_RETURN_ERROR_IF(spec->transform != CUREDUCE_TRANSFORM_NONE, INVALID_SPEC,
                             "%s, a rung of the teaching ladder, takes no transform", name);
  }
  if (coverage == CUREDUCE_COVER_SHAPE)
    return check_shaped_fields(spec, name);
  CUREDUCE_RETURN_ERROR_IF(spec->group || spec->cols, INVALID_SPEC, "%s takes no t or c field", name);
  bool uses_unroll = coverage == CUREDUCE_COVER_UNROLL_PER_THREAD || coverage == CUREDUCE_COVER_GRID_STRIDE;
  CUREDUCE_RETURN_ERROR_IF(!uses_unroll && spec->unroll != 1, INVALID_SPEC, "%s loads one at a time: unroll must be 1",
                           name);
  CUREDUCE_RETURN_ERROR_IF(coverage != CUREDUCE_COVER_GRID_STRIDE && spec->vector_bytes != element, INVALID_SPEC,
                           "%s loads single elements: vector bytes must be %zu", name, element);
  return CUREDUCE_STATUS_OK;
}

cureduce_status cureduce_spec_validate_kernel(const cureduce_spec *spec) {
  CUREDUCE_RETURN_ERROR_IF(!spec, NULL_POINTER, "spec must not be NULL");
  CUREDUCE_RETURN_ERROR_IF(!cureduce_op_is_valid(spec->op), INVALID_SPEC, "unknown operation %u", spec->op);
  CUREDUCE_RETURN_ERROR_IF(!cureduce_dtype_is_valid(spec->input) || !cureduce_dtype_is_valid(spec->output),
                           INVALID_SPEC, "unknown type %u or %u", spec->input, spec->output);
  CUREDUCE_RETURN_ERROR_IF(spec->unused[0] || spec->unused[1] || spec->unused[2], INVALID_SPEC,
                           "a spec's unused bytes must be zero");
  CUREDUCE_RETURN_ERROR_IF(cureduce_transform_has_expression((cureduce_transform)spec->transform) !=
                               (spec->expression != 0),
                           INVALID_SPEC, "an expression's digest goes with an expression transform, and only with it");
  CUREDUCE_RETURN_ERROR_IF(cureduce_check_transform_types(spec->op, spec->transform, spec->input, spec->output) !=
                               CUREDUCE_STATUS_OK,
                           INVALID_SPEC, "%s of %s(%s) cannot give %s", cureduce_op_name(spec->op),
                           cureduce_transform_is_valid(spec->transform) ? cureduce_transform_name(spec->transform)
                                                                        : "?",
                           cureduce_dtype_name(spec->input), cureduce_dtype_name(spec->output));
  CUREDUCE_RETURN_ERROR_IF(spec->strategy >= CUREDUCE_STRATEGY_COUNT, INVALID_SPEC, "unknown strategy %u",
                           spec->strategy);
  CUREDUCE_RETURN_ERROR_IF(spec->block < 32 || spec->block > 1024 || spec->block % 32, INVALID_SPEC,
                           "block %u is not a multiple of 32 from 32 to 1024", spec->block);
  CUREDUCE_RETURN_ERROR_IF(spec->unroll < 1 || spec->unroll > 16, INVALID_SPEC,
                           "unroll %u is not from 1 to 16", spec->unroll);
  size_t element = cureduce_dtype_size(spec->input);
  CUREDUCE_RETURN_ERROR_IF(!is_power_of_two(spec->vector_bytes) || spec->vector_bytes < element ||
                               spec->vector_bytes > 16,
                           INVALID_SPEC, "vector of %u bytes is not a power of two from %zu to 16",
                           spec->vector_bytes, element);
  return check_strategy_shape(spec);
}

cureduce_status cureduce_spec_validate(const cureduce_spec *spec) {
  CUREDUCE_FORWARD_IF_ERROR(cureduce_spec_validate_kernel(spec));
  CUREDUCE_RETURN_ERROR_IF(spec->blocks_per_sm < 1 || spec->blocks_per_sm > 32, INVALID_SPEC,
                           "%u blocks per SM is not from 1 to 32", spec->blocks_per_sm);
  bool shaped = cureduce_strategy_coverage(spec->strategy) == CUREDUCE_COVER_SHAPE;
  CUREDUCE_RETURN_ERROR_IF(shaped ? spec->splits < 1 || spec->splits > 65535 : spec->splits != 0, INVALID_SPEC,
                           shaped ? "splits must be from 1 to 65535" : "%s takes no s field",
                           strategy_table[spec->strategy].name);
  return CUREDUCE_STATUS_OK;
}

cureduce_status cureduce_spec_validate_production(const cureduce_spec *spec) {
  CUREDUCE_FORWARD_IF_ERROR(cureduce_spec_validate(spec));
  CUREDUCE_RETURN_ERROR_IF(!cureduce_strategy_is_production(spec->strategy), INVALID_SPEC,
                           "%s is a rung of the teaching ladder, not a production strategy (single_pass)",
                           strategy_table[spec->strategy].name);
  return CUREDUCE_STATUS_OK;
}

cureduce_spec cureduce_spec_kernel_part(const cureduce_spec *spec) {
  cureduce_spec kernel = *spec;
  kernel.blocks_per_sm = 0;
  kernel.splits = 0;
  return kernel;
}

void cureduce_spec_add_kernel_part(cureduce_spec *parts, size_t *count, const cureduce_spec *spec) {
  cureduce_spec part = cureduce_spec_kernel_part(spec);
  part.blocks_per_sm = 1; /* keeps it a valid spec */
  if (cureduce_strategy_coverage((cureduce_strategy)part.strategy) == CUREDUCE_COVER_SHAPE)
    part.splits = 1;
  for (size_t k = 0; k < *count; k++)
    if (cureduce_spec_equal(&parts[k], &part))
      return;
  parts[(*count)++] = part;
}

_Static_assert(sizeof(cureduce_spec) == 32, "a spec has no padding: specs compare and hash as bytes");

bool cureduce_spec_equal(const cureduce_spec *a, const cureduce_spec *b) {
  return memcmp(a, b, sizeof *a) == 0;
}

void cureduce_spec_format(const cureduce_spec *spec, char text[CUREDUCE_SPEC_TEXT_MAX]) {
  const char *op = cureduce_op_name(spec->op), *input = cureduce_dtype_name(spec->input);
  const char *output = cureduce_dtype_name(spec->output);
  const char *strategy = cureduce_strategy_name(spec->strategy);
  const char *transform = cureduce_transform_name(spec->transform);
  char mapped[48]; /* the input, inside its transform's name when it has one */
  if (cureduce_transform_has_expression((cureduce_transform)spec->transform))
    snprintf(mapped, sizeof mapped, "%s.%016llx(%s)", transform, (unsigned long long)spec->expression,
             input ? input : "?");
  else if (spec->transform)
    snprintf(mapped, sizeof mapped, "%s(%s)", transform ? transform : "?", input ? input : "?");
  else
    snprintf(mapped, sizeof mapped, "%s", input ? input : "?");
  int length = snprintf(text, CUREDUCE_SPEC_TEXT_MAX, "%s:%s->%s/%s/b%u/u%u/v%u/g%u", op ? op : "?", mapped,
                        output ? output : "?", strategy ? strategy : "?", spec->block, spec->unroll,
                        spec->vector_bytes, spec->blocks_per_sm);
  if (spec->strategy < CUREDUCE_STRATEGY_COUNT && strategy_table[spec->strategy].coverage == CUREDUCE_COVER_SHAPE &&
      length > 0 && length < CUREDUCE_SPEC_TEXT_MAX)
    snprintf(text + length, (size_t)(CUREDUCE_SPEC_TEXT_MAX - length), "/t%u/c%u/s%u", spec->group, spec->cols,
             spec->splits);
}

/* Reads "<letter><number>" and checks the number fits `limit`. */
static bool parse_field(const char *field, char letter, unsigned limit, unsigned *value) {
  char *end;
  if (field[0] != letter || field[1] < '0' || field[1] > '9')
    return false;
  unsigned long parsed = strtoul(field + 1, &end, 10);
  if (*end != '\0' || parsed > limit)
    return false;
  *value = (unsigned)parsed;
  return true;
}

/* "abs(f32)": the transform's id, the input's name left in place; "expression.<16 hex digits>(f32)"
 * also the digest; "f32": 0; else -1. */
static int parse_transform(char *input, uint64_t *expression) {
  *expression = 0;
  char *open = strchr(input, '(');
  if (!open)
    return CUREDUCE_TRANSFORM_NONE;
  size_t length = strlen(open);
  if (length < 2 || open[length - 1] != ')')
    return -1;
  open[length - 1] = '\0';
  *open = '\0';
  char *dot = strchr(input, '.'), *end = NULL;
  if (dot) {
    *dot = '\0';
    if (strlen(dot + 1) != 16 || strspn(dot + 1, "0123456789abcdef") != 16)
      return -1;
    *expression = strtoull(dot + 1, &end, 16);
  }
  int transform = cureduce_transform_from_name(input);
  memmove(input, open + 1, length - 1);
  if (cureduce_transform_has_expression((cureduce_transform)transform) != (dot != NULL))
    return -1; /* a digest is an expression's, and an expression needs one */
  return transform == CUREDUCE_TRANSFORM_NONE ? -1 : transform; /* none is written without one */
}

cureduce_status cureduce_spec_parse(const char *text, cureduce_spec *spec) {
  CUREDUCE_RETURN_ERROR_IF(!text || !spec, NULL_POINTER, "text and spec must not be NULL");
  CUREDUCE_RETURN_ERROR_IF(strlen(text) >= CUREDUCE_SPEC_TEXT_MAX, INVALID_SPEC,
                           "spec text is longer than %d bytes", CUREDUCE_SPEC_TEXT_MAX - 1);
  char copy[CUREDUCE_SPEC_TEXT_MAX];
  strcpy(copy, text);
  char *parts[10];
  int count = 0;
  for (char *cursor = copy, *slash; count < 10; cursor = slash + 1) {
    parts[count++] = cursor;
    slash = strchr(cursor, '/');
    if (!slash)
      break;
    *slash = '\0';
  }
  CUREDUCE_RETURN_ERROR_IF(count != 6 && count != 9, INVALID_SPEC,
                           "'%s' is not op:in->out/strategy/bBLOCK/uUNROLL/vBYTES/gBLOCKS_PER_SM, with "
                           "/tGROUP/cCOLS/sSPLITS after it for a shaped strategy",
                           text);
  char *colon = strchr(parts[0], ':'), *arrow = strstr(parts[0], "->");
  CUREDUCE_RETURN_ERROR_IF(!colon || !arrow || arrow < colon, INVALID_SPEC, "'%s' is not op:in->out", parts[0]);
  *colon = '\0';
  *arrow = '\0';
  uint64_t expression;
  int transform = parse_transform(colon + 1, &expression);
  int op = cureduce_op_from_name(parts[0]), input = cureduce_dtype_from_name(colon + 1);
  int output = cureduce_dtype_from_name(arrow + 2);
  CUREDUCE_RETURN_ERROR_IF(op < 0 || input < 0 || output < 0 || transform < 0, INVALID_SPEC,
                           "unknown operation, transform or type in '%s'", text);
  int strategy = -1;
  for (int s = 0; s < CUREDUCE_STRATEGY_COUNT; s++)
    if (strcmp(parts[1], strategy_table[s].name) == 0)
      strategy = s;
  CUREDUCE_RETURN_ERROR_IF(strategy < 0, INVALID_SPEC, "unknown strategy '%s'", parts[1]);
  bool shaped = strategy_table[strategy].coverage == CUREDUCE_COVER_SHAPE;
  CUREDUCE_RETURN_ERROR_IF(shaped != (count == 9), INVALID_SPEC, "'%s': %s", text,
                           shaped ? "a shaped strategy needs /tGROUP/cCOLS/sSPLITS" : "only shaped strategies take /t/c/s");
  /* The number fields after the strategy, in order, each with the most its spec field holds. */
  static const struct {
    char letter;
    unsigned most;
  } fields[] = {{'b', 1024}, {'u', 255}, {'v', 255}, {'g', 65535}, {'t', 1024}, {'c', 1u << 20}, {'s', 65535}};
  unsigned numbers[7] = {0};
  for (int f = 0; f < count - 2; f++)
    CUREDUCE_RETURN_ERROR_IF(!parse_field(parts[f + 2], fields[f].letter, fields[f].most, &numbers[f]), INVALID_SPEC,
                             "'%s' in '%s' is not %c and a number up to %u", parts[f + 2], text, fields[f].letter,
                             fields[f].most);
  cureduce_spec parsed = {.op = (uint8_t)op,
                          .input = (uint8_t)input,
                          .output = (uint8_t)output,
                          .strategy = (uint8_t)strategy,
                          .block = (uint16_t)numbers[0],
                          .unroll = (uint8_t)numbers[1],
                          .vector_bytes = (uint8_t)numbers[2],
                          .blocks_per_sm = (uint16_t)numbers[3],
                          .group = (uint16_t)numbers[4],
                          .cols = numbers[5],
                          .splits = numbers[6],
                          .transform = (uint8_t)transform,
                          .expression = expression};
  CUREDUCE_FORWARD_IF_ERROR(cureduce_spec_validate(&parsed));
  *spec = parsed;
  return CUREDUCE_STATUS_OK;
}

cureduce_spec cureduce_spec_for_strategy(cureduce_strategy strategy, cureduce_op op, cureduce_dtype input,
                                         cureduce_dtype output, int max_threads_per_sm) {
  enum { block = 256 };
  int blocks_per_sm = max_threads_per_sm / block;
  cureduce_coverage coverage = cureduce_strategy_coverage(strategy);
  return (cureduce_spec){
      .op = (uint8_t)op,
      .input = (uint8_t)input,
      .output = (uint8_t)output,
      .strategy = (uint8_t)strategy,
      .block = block,
      .unroll = coverage == CUREDUCE_COVER_UNROLL_PER_THREAD ? 8 : coverage == CUREDUCE_COVER_ONE_PER_THREAD ||
                                                                       coverage == CUREDUCE_COVER_TWO_PER_THREAD
                                                                   ? 1
                                                                   : 4,
      .vector_bytes = (uint8_t)(coverage == CUREDUCE_COVER_GRID_STRIDE || coverage == CUREDUCE_COVER_SHAPE
                                    ? 16
                                    : cureduce_dtype_size(input)),
      .blocks_per_sm = (uint16_t)(blocks_per_sm < 1 ? 1 : blocks_per_sm > 32 ? 32 : blocks_per_sm),
      /* shaped: a warp a row, segment or column tile, or whole blocks; the shape's heuristic is shape.c's */
      .group = (uint16_t)(coverage != CUREDUCE_COVER_SHAPE || whole_blocks_a_row(strategy) ? 0 : 32),
      .splits = (uint16_t)(coverage == CUREDUCE_COVER_SHAPE)};
}

cureduce_spec cureduce_spec_heuristic(cureduce_op op, cureduce_dtype input, cureduce_dtype output,
                                      int max_threads_per_sm) {
  return cureduce_spec_for_strategy(CUREDUCE_STRATEGY_SINGLE_PASS, op, input, output, max_threads_per_sm);
}
