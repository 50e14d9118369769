/* The public header compiles alone, with nothing included before it, under -Wpedantic. */
#include "cureduce/cureduce.h"

int main(void) { return cureduce_version() == CUREDUCE_VERSION ? 0 : 1; }
