#ifndef CMALLOC_H
#define CMALLOC_H

// glibc's malloc controls (malloc_trim, mallopt), which the Glibc module leaves out.
#include <malloc.h>

#endif
