/* Feeds cureduce_ref_exact_sum the cases tests/exact_reference.py writes, and prints its results,
 * so that the host's exact reference is itself checked against exact rational arithmetic.
 * Input, one case a line: "<input type> <output type> <count> <element bits in hex>...".
 * Output, one line a case: the result's bits in hex. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "reference.h"

int main(void) {
  char input_name[16], output_name[16];
  size_t count;
  while (scanf("%15s %15s %zu", input_name, output_name, &count) == 3) {
    int input = cureduce_dtype_from_name(input_name), output = cureduce_dtype_from_name(output_name);
    if (input < 0 || output < 0) {
      fprintf(stderr, "unknown type %s or %s\n", input_name, output_name);
      return 2;
    }
    size_t size = cureduce_dtype_size((cureduce_dtype)input);
    unsigned char *data = malloc(count * size + 1);
    for (size_t i = 0; i < count; i++) {
      unsigned long long bits;
      if (scanf("%llx", &bits) != 1) {
        fprintf(stderr, "case ends early at element %zu\n", i);
        return 2;
      }
      memcpy(data + i * size, &bits, size); /* little-endian: the low bytes */
    }
    cureduce_ref_result r = cureduce_ref_exact_sum((cureduce_dtype)input, (cureduce_dtype)output, data, count);
    unsigned long long bits = 0;
    memcpy(&bits, &r.value.value, cureduce_dtype_size((cureduce_dtype)output));
    printf("%llx\n", bits);
    free(data);
  }
  return 0;
}
