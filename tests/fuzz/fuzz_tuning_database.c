/* libFuzzer: tuning databases as read from disk. Whatever the bytes, decoding must not crash,
 * every record it keeps must be a legal spec for its own key (its transform and expression too), and
 * a database of the current format it accepts whole must encode back to the same bytes (older
 * formats encode as the current one). */
#include <stdlib.h>
#include <string.h>

#include "tunedb.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
  static const char gpu[] = "device=fuzz;cc=9.0;sms=132";
  cureduce_tunedb db = {0};
  cureduce_tunedb_verdict verdict = cureduce_tunedb_decode(gpu, data, size, &db);
  for (size_t i = 0; i < db.count; i++)
    if (cureduce_spec_validate(&db.records[i].spec) != CUREDUCE_STATUS_OK || db.records[i].spec.op != db.records[i].op ||
        cureduce_strategy_layout((cureduce_strategy)db.records[i].spec.strategy) != db.records[i].layout ||
        db.records[i].spec.transform != db.records[i].transform ||
        db.records[i].spec.expression != db.records[i].expression)
      abort();
  const unsigned char current[4] = {CUREDUCE_TUNEDB_FORMAT, 0, 0, 0};
  if (verdict == CUREDUCE_TUNEDB_VALID && size >= 12 && memcmp(data + 8, current, 4) == 0) {
    void *again;
    size_t again_size;
    if (!cureduce_tunedb_encode(gpu, &db, &again, &again_size) || again_size != size || memcmp(again, data, size) != 0)
      abort();
    free(again);
  }
  cureduce_tunedb_free(&db);
  return 0;
}
